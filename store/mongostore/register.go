package mongostore

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "mongodb" opens a store on a client of its own, which the
// store's Close disconnects.
func init() { store.Register("mongodb", storekit.Opener(parseSpec, dialSpec)) }

// specConfig is the configuration of a store of type mongodb:
//
//	type: mongodb
//	uri: mongodb://10.0.0.1:27017,10.0.0.2:27017/?replicaSet=rs0
//	database: app
//	timeout: 2s
//	options: { weakWriteConcern: false, allowFerretDB: false }
//
// The files the URI names (tlsCAFile, tlsCertificateKeyFile), when relative, are
// read from the configuration file's directory, as every file setting is.
//
// The URI's write concern (w=…) must be majority, or absent, unless
// weakWriteConcern is true (see WithWeakWriteConcern); the store writes with
// majority otherwise.
type specConfig struct {
	URI      string        `yaml:"uri"`
	Database string        `yaml:"database"`
	Timeout  time.Duration `yaml:"timeout"`
	Options  struct {
		WeakWriteConcern bool `yaml:"weakWriteConcern"`
		AllowFerretDB    bool `yaml:"allowFerretDB"`
	} `yaml:"options"`
}

// maxDatabaseLen is the longest database name MongoDB accepts, in bytes.
const maxDatabaseLen = 63

// parsed is a store of type mongodb as its settings give it, checked.
type parsed struct {
	client   *options.ClientOptions
	database string
	opts     []Option
}

// parseSpec checks c, the settings of spec, without I/O and returns them with their
// facts. Its errors name the field of spec at fault and the values it allows; they
// never repeat the URI, which may hold a password.
func parseSpec(spec store.Spec, c specConfig) (parsed, store.Facts, error) {
	bad := spec.Invalid
	if c.URI == "" {
		return parsed{}, store.Facts{}, bad("uri", "missing; want a MongoDB connection string such as mongodb://127.0.0.1:27017/")
	}
	co := options.Client().ApplyURI(uriFiles(c.URI, spec))
	if err := co.Validate(); err != nil {
		return parsed{}, store.Facts{}, bad("uri", "not a MongoDB connection string (mongodb://host:port/?options): %v", err)
	}
	switch {
	case c.Database == "":
		return parsed{}, store.Facts{}, bad("database", "missing; want the name of the database that holds the collections %s and %s", RangeCollection, SlotCollection)
	case len(c.Database) > maxDatabaseLen || strings.ContainsAny(c.Database, "/\\. \"$*<>:|?\x00"):
		return parsed{}, store.Facts{}, bad("database", "%q is not a database name: at most %d bytes, none of /\\. \"$*<>:|?", c.Database, maxDatabaseLen)
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	opts := []Option{WithTimeout(timeout)}
	if c.Options.AllowFerretDB {
		opts = append(opts, WithFerretDB())
	}
	if spec.Logger != nil {
		opts = append(opts, WithLogger(spec.Logger))
	}
	if wc := co.WriteConcern; wc != nil && wc.W != nil && wc.W != "majority" {
		if !c.Options.WeakWriteConcern {
			return parsed{}, store.Facts{}, fmt.Errorf("%s.uri: %w: %w: the URI asks for w=%v; a failover could roll back an acknowledged reservation. Drop w= from the URI for majority, or set options.weakWriteConcern: true",
				spec.Path, store.ErrInvalidArgument, ErrWeakWriteConcern, wc.W)
		}
		if err := checkWriteConcern(wc); err != nil { // as New would refuse it
			return parsed{}, store.Facts{}, fmt.Errorf("%s: mongostore: %w", spec.Path, err)
		}
		opts = append(opts, WithWeakWriteConcern(wc))
	}
	server := "server: refuses FerretDB, whose updates are not atomic, unless options.allowFerretDB; before the first operation and after a failed one"
	if c.Options.AllowFerretDB {
		server = "server: accepts FerretDB with a warning (options.allowFerretDB)"
	}
	facts := store.Facts{Timeout: timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true, Checks: []string{
		"reach: connects on the first operation, within timeout", server,
	}}
	return parsed{client: co, database: c.Database, opts: opts}, facts, nil
}

// dialSpec makes the client of p, which connects on the first operation, and the
// store on its database.
func dialSpec(_ context.Context, _ store.Spec, p parsed) (store.RangeStore, error) {
	client, err := mongo.Connect(p.client)
	if err != nil {
		return nil, fmt.Errorf("mongostore: making a client: %w", err)
	}
	st, err := newStore(client.Database(p.database), true, p.opts)
	if err != nil {
		client.Disconnect(context.Background())
		return nil, err
	}
	return st, nil
}

// fileOptions are the connection string options that name a file, in lower case (the
// driver reads option names in any case).
var fileOptions = map[string]bool{
	"tlscafile": true, "tlscertificatekeyfile": true,
	"sslcertificateauthorityfile": true, "sslclientcertificatekeyfile": true,
}

// uriFiles returns uri with the relative file names of its fileOptions read from the
// configuration's directory (spec.Resolve); the rest of it stays as written.
func uriFiles(uri string, spec store.Spec) string {
	base, query, ok := strings.Cut(uri, "?")
	if !ok || spec.Dir == "" {
		return uri
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !fileOptions[strings.ToLower(k)] {
			continue
		}
		name, err := url.QueryUnescape(v)
		if err != nil {
			continue // the driver reports it
		}
		params[i] = k + "=" + url.QueryEscape(spec.Resolve(name))
	}
	return base + "?" + strings.Join(params, "&")
}
