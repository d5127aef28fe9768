package sqlstore

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// DefaultTimeout bounds every statement of a store configured without a timeout.
// New and Open take their timeout as an argument, so only the configuration
// type has a default.
const DefaultTimeout = 2 * time.Second

// The configuration type "sql" opens its database, as Open does, within the
// timeout.
func init() { store.Register("sql", storekit.Opener(parseSpec, dialSpec)) }

// specConfig is the configuration of a store of type sql:
//
//	type: sql
//	driver: pgx              # pgx | mysql | sqlserver | sqlite (the program imports it)
//	dsn: postgres://…        # or dsn-file: a file that holds it
//	password-file: pg.pass   # its first line is the password (pgx, mysql, sqlserver)
//	timeout: 2s
//	options: { initSchema: true, dialect: postgresql, rangeTable: cosid_range, fetchPlan: statement }
//
// A relative SQLite file name in dsn, dsn-file and password-file are read from the
// configuration file's directory (store.Spec.Dir).
type specConfig struct {
	Driver       string        `yaml:"driver"`
	DSN          string        `yaml:"dsn"`
	DSNFile      store.File    `yaml:"dsn-file"`
	PasswordFile store.File    `yaml:"password-file"`
	Timeout      time.Duration `yaml:"timeout"`
	Options      struct {
		InitSchema     bool   `yaml:"initSchema"`
		Dialect        string `yaml:"dialect"`
		RangeTable     string `yaml:"rangeTable"`
		SlotTable      string `yaml:"slotTable"`
		NamespaceTable string `yaml:"namespaceTable"`
		FetchPlan      string `yaml:"fetchPlan"`
		// AllowAsyncReplicas is WithAllowAsyncReplicas.
		AllowAsyncReplicas bool `yaml:"allowAsyncReplicas"`
	} `yaml:"options"`
}

// parsed is a store of type sql as its settings give it, checked.
type parsed struct {
	driver, dsn string
	timeout     time.Duration
	opts        []Option
}

// parseSpec checks c, the settings of spec, without I/O (it reads dsn-file and
// password-file) and returns them with their facts. Its errors name the field of
// spec at fault and the values it allows.
func parseSpec(spec store.Spec, c specConfig) (parsed, store.Facts, error) {
	bad := spec.Invalid
	switch {
	case c.Driver == "":
		return parsed{}, store.Facts{}, bad("driver", "missing; want one of pgx, mysql, sqlserver, sqlite (or another registered database/sql driver)")
	case checkDriver(c.Driver) != nil:
		return parsed{}, store.Facts{}, bad("driver", "%v", checkDriver(c.Driver))
	case c.DSN != "" && c.DSNFile != "":
		return parsed{}, store.Facts{}, bad("dsn-file", "set beside dsn; set one of them")
	case c.DSN == "" && c.DSNFile == "":
		return parsed{}, store.Facts{}, bad("dsn", "missing; want the driver's data source name, such as postgres://user@host/db or cosid.db, or a dsn-file that holds it")
	}
	dsn, err := specDSN(spec, c)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	opts := []Option{WithInitSchema(c.Options.InitSchema), WithDialect(c.Options.Dialect), WithAllowAsyncReplicas(c.Options.AllowAsyncReplicas), withSettingsPath(spec.Path)}
	if spec.Logger != nil {
		opts = append(opts, WithLogger(spec.Logger))
	}
	if d := c.Options.Dialect; d != "" {
		if _, ok := lookupDialect(d); !ok {
			return parsed{}, store.Facts{}, bad("options.dialect", "%q is unknown; want one of %s (or leave it out to detect it)", d, strings.Join(Dialects(), ", "))
		}
	}
	if p := c.Options.FetchPlan; p != "" {
		plan, err := ParseFetchPlan(p)
		if err != nil {
			return parsed{}, store.Facts{}, bad("options.fetchPlan", "%v", err)
		}
		opts = append(opts, WithFetchPlan(plan))
	}
	t := Tables{Range: c.Options.RangeTable, Slot: c.Options.SlotTable, Namespace: c.Options.NamespaceTable}
	for _, f := range []struct{ field, name string }{
		{"options.rangeTable", t.Range}, {"options.slotTable", t.Slot}, {"options.namespaceTable", t.Namespace},
	} {
		if f.name == "" {
			continue
		}
		if err := checkTableName(f.name); err != nil {
			return parsed{}, store.Facts{}, bad(f.field, "%v", err)
		}
	}
	opts = append(opts, WithTables(t))
	facts := store.Facts{Timeout: timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true, Checks: checks(c)}
	for _, f := range []struct {
		field string
		name  store.File
	}{{"dsn-file", c.DSNFile}, {"password-file", c.PasswordFile}} {
		if spec.Offline && f.name != "" {
			facts.Checks = append(facts.Checks, spec.Unread(f.field, f.name))
		}
	}
	return parsed{driver: c.Driver, dsn: dsn, timeout: timeout, opts: opts}, facts, nil
}

// dialSpec opens the database of p and the store on it, which owns it.
func dialSpec(ctx context.Context, _ store.Spec, p parsed) (store.RangeStore, error) {
	st, err := open(ctx, p.driver, p.dsn, p.timeout, buildConfig(p.opts))
	if err != nil {
		return nil, err // not st: a nil *Store in the interface would not be nil
	}
	return st, nil
}

// checks says what a store of the settings c checks of its database when it opens.
func checks(c specConfig) []string {
	dialect := "dialect: detects it from the server"
	if c.Options.Dialect != "" {
		dialect = "dialect: checks that the server is " + c.Options.Dialect + " (options.dialect)"
	}
	replication := "replication: refuses async replicas, commits that wait for no flush or no replica, and Galera, unless options.allowAsyncReplicas; a standby or a read-only server always"
	switch {
	case isSQLite(c.Driver) || c.Driver == "sqlserver":
		replication = "replication: none, for " + c.Driver
	case c.Options.AllowAsyncReplicas:
		replication = "replication: accepts async replicas and unflushed commits with a warning (options.allowAsyncReplicas); refuses a standby or a read-only server"
	}
	tables := "tables: refuses a database without CosId's tables (ErrNotSetUp), unless options.initSchema creates them"
	if c.Options.InitSchema {
		tables = "tables: creates those that are missing (options.initSchema)"
	}
	return []string{"reach: pings the database within timeout", dialect, replication, tables}
}

// specDSN returns the DSN of the settings c: dsn, or the content of dsn-file; a
// relative SQLite file name read from the configuration's directory; with the
// password of password-file.
func specDSN(spec store.Spec, c specConfig) (string, error) {
	if spec.Offline && (c.DSNFile != "" || c.PasswordFile != "") {
		return "", nil // the files are read at open; an offline check has no DSN to check
	}
	dsn := c.DSN
	if c.DSNFile != "" {
		b, err := os.ReadFile(string(c.DSNFile))
		if err != nil {
			return "", spec.Invalid("dsn-file", "%v", err)
		}
		if dsn = strings.TrimSpace(string(b)); dsn == "" {
			return "", spec.Invalid("dsn-file", "%s is empty; want the driver's data source name", c.DSNFile)
		}
	}
	if isSQLite(c.Driver) {
		dsn = resolveSQLite(dsn, spec.Dir)
	}
	if c.PasswordFile == "" {
		return dsn, nil
	}
	b, err := os.ReadFile(string(c.PasswordFile))
	if err != nil {
		return "", spec.Invalid("password-file", "%v", err)
	}
	password, _, _ := strings.Cut(string(b), "\n")
	if password = strings.TrimSuffix(password, "\r"); password == "" {
		return "", spec.Invalid("password-file", "%s is empty; its first line is the password", c.PasswordFile)
	}
	if dsn, err = withPassword(c.Driver, dsn, password); err != nil {
		return "", spec.Invalid("password-file", "%v", err)
	}
	return dsn, nil
}
