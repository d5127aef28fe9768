package etcdstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "etcd" opens a store on a client of its own, which the
// store's Close closes.
func init() { store.Register("etcd", storekit.Opener(parseSpec, dialSpec)) }

// specConfig is the configuration of a store of type etcd:
//
//	type: etcd
//	endpoints: [10.0.0.1:2379, 10.0.0.2:2379]
//	username: cosid                  # with password-file, or neither
//	password-file: /run/secrets/etcd # its first line is the password
//	tls: { ca-file: ca.pem, cert-file: client.pem, key-file: client-key.pem, server-name: etcd }
//	timeout: 2s
//	options: { prefix: /cosid/, allowUnsafeVersion: false }
//
// tls: {} speaks TLS with the system's roots; without tls the client speaks plain
// gRPC. Relative file names are read from the configuration file's directory.
type specConfig struct {
	Endpoints    []string      `yaml:"endpoints"`
	Username     string        `yaml:"username"`
	PasswordFile store.File    `yaml:"password-file"`
	TLS          *tlsConfig    `yaml:"tls"`
	Timeout      time.Duration `yaml:"timeout"`
	Options      struct {
		Prefix             string `yaml:"prefix"`
		AllowUnsafeVersion bool   `yaml:"allowUnsafeVersion"`
	} `yaml:"options"`
}

type tlsConfig struct {
	CAFile     store.File `yaml:"ca-file"`
	CertFile   store.File `yaml:"cert-file"`
	KeyFile    store.File `yaml:"key-file"`
	ServerName string     `yaml:"server-name"`
}

// parsed is a store of type etcd as its settings give it, checked.
type parsed struct {
	client clientv3.Config
	opts   []Option
}

// parseSpec checks c, the settings of spec, without I/O (it reads password-file
// and the TLS files) and returns them with their facts. Its errors name the field
// of spec at fault and the values it allows.
func parseSpec(spec store.Spec, c specConfig) (parsed, store.Facts, error) {
	bad := spec.Invalid
	if len(c.Endpoints) == 0 {
		return parsed{}, store.Facts{}, bad("endpoints", "missing; want a list of the cluster's client addresses, such as [127.0.0.1:2379]")
	}
	for i, e := range c.Endpoints {
		if e == "" || strings.ContainsAny(e, " \t\n") {
			return parsed{}, store.Facts{}, bad(fmt.Sprintf("endpoints[%d]", i), "%q is not an address; want host:port or a URL such as https://host:2379", e)
		}
	}
	switch {
	case c.Username != "" && c.PasswordFile == "":
		return parsed{}, store.Facts{}, bad("password-file", "missing; a username needs the file of its password")
	case c.Username == "" && c.PasswordFile != "":
		return parsed{}, store.Facts{}, bad("username", "missing; a password-file needs the user it belongs to")
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	prefix := DefaultPrefix
	if c.Options.Prefix != "" {
		if err := checkPrefix(c.Options.Prefix); err != nil {
			return parsed{}, store.Facts{}, bad("options.prefix", "%v", err)
		}
		prefix = c.Options.Prefix
	}
	// The client connects when first used, except that with a username it signs in
	// at once, within the timeout: a wrong password fails here.
	cfg := clientv3.Config{Endpoints: c.Endpoints, Username: c.Username, DialTimeout: timeout, Logger: zap.NewNop()}
	var unread []string // the files an offline check leaves for open
	if c.PasswordFile != "" && spec.Offline {
		unread = append(unread, spec.Unread("password-file", c.PasswordFile))
	} else if c.PasswordFile != "" {
		b, err := os.ReadFile(string(c.PasswordFile))
		if err != nil {
			return parsed{}, store.Facts{}, bad("password-file", "%v", err)
		}
		cfg.Password, _, _ = strings.Cut(string(b), "\n")
		cfg.Password = strings.TrimSuffix(cfg.Password, "\r")
	}
	if c.TLS != nil && spec.Offline {
		for _, f := range []struct {
			field string
			name  store.File
		}{{"tls.ca-file", c.TLS.CAFile}, {"tls.cert-file", c.TLS.CertFile}, {"tls.key-file", c.TLS.KeyFile}} {
			if f.name != "" {
				unread = append(unread, spec.Unread(f.field, f.name))
			}
		}
	} else if c.TLS != nil {
		t, field, err := c.TLS.config()
		if err != nil {
			return parsed{}, store.Facts{}, bad("tls."+field, "%v", err)
		}
		cfg.TLS = t
	}
	opts := []Option{WithPrefix(prefix), WithTimeout(timeout)}
	if c.Options.AllowUnsafeVersion {
		opts = append(opts, WithUnsafeVersion())
	}
	if spec.Logger != nil {
		opts = append(opts, WithLogger(spec.Logger))
	}
	release := "release: refuses a member on etcd 3.5.0 to 3.5.2, which can lose acknowledged writes after a crash, unless options.allowUnsafeVersion; before the first call, after failed ones and every minute"
	if c.Options.AllowUnsafeVersion {
		release = "release: accepts a member on etcd 3.5.0 to 3.5.2 with a warning (options.allowUnsafeVersion)"
	}
	checks := []string{"reach: connects on the first call, within timeout", release}
	if c.Username != "" {
		checks[0] = "reach: signs in as username at open, within timeout"
	}
	facts := store.Facts{Timeout: timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true, Checks: append(checks, unread...)}
	return parsed{client: cfg, opts: opts}, facts, nil
}

// dialSpec makes the client of p and the store on it.
func dialSpec(_ context.Context, _ store.Spec, p parsed) (store.RangeStore, error) {
	client, err := clientv3.New(p.client)
	if err != nil {
		return nil, fmt.Errorf("etcdstore: making a client of %v: %w", p.client.Endpoints, err)
	}
	st, err := newStore(client, true, p.opts)
	if err != nil {
		client.Close()
		return nil, err
	}
	return st, nil
}

// config returns the TLS configuration, or the field at fault and why.
func (t tlsConfig) config() (*tls.Config, string, error) {
	c := &tls.Config{ServerName: t.ServerName, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := os.ReadFile(string(t.CAFile))
		if err != nil {
			return nil, "ca-file", err
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, "ca-file", fmt.Errorf("%s holds no PEM certificate", t.CAFile)
		}
	}
	switch {
	case t.CertFile != "" && t.KeyFile != "":
		pair, err := tls.LoadX509KeyPair(string(t.CertFile), string(t.KeyFile))
		if err != nil {
			return nil, "cert-file", err
		}
		c.Certificates = []tls.Certificate{pair}
	case t.CertFile != "":
		return nil, "key-file", fmt.Errorf("missing; cert-file %s needs its key", t.CertFile)
	case t.KeyFile != "":
		return nil, "cert-file", fmt.Errorf("missing; key-file %s needs its certificate", t.KeyFile)
	}
	return c, "", nil
}
