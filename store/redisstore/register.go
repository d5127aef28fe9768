package redisstore

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "redis" opens a store on a client of its own, which the
// store's Close closes.
func init() { store.Register("redis", storekit.Opener(parseSpec, dialSpec)) }

// specConfig is the configuration of a store of type redis:
//
//	type: redis
//	addr: 127.0.0.1:6379     # one server; or addrs: [a:7000, b:7000, c:7000], the nodes of a Cluster
//	sentinels: [a:26379, b:26379, c:26379]   # or the Sentinels of a master, with master-name
//	master-name: cosid
//	username: cosid          # ACL user (optional)
//	password-file: /run/secrets/redis   # the password, read at start (optional; relative to the configuration file)
//	db: 0                    # database number (not on a Cluster)
//	tls: true                # TLS with the system's roots
//	timeout: 2s
//	options: { prefix: "cosid:", allowVolatile: false, replicas: 2, replicaTimeout: 500ms, allowAsyncReplicas: false }
type specConfig struct {
	Addr         string        `yaml:"addr"`
	Addrs        []string      `yaml:"addrs"`
	Sentinels    []string      `yaml:"sentinels"`
	MasterName   string        `yaml:"master-name"`
	Username     string        `yaml:"username"`
	PasswordFile store.File    `yaml:"password-file"`
	DB           int           `yaml:"db"`
	TLS          bool          `yaml:"tls"`
	Timeout      time.Duration `yaml:"timeout"`
	Options      struct {
		Prefix             *string       `yaml:"prefix"`
		AllowVolatile      bool          `yaml:"allowVolatile"`
		Replicas           int           `yaml:"replicas"`
		ReplicaTimeout     time.Duration `yaml:"replicaTimeout"`
		AllowAsyncReplicas bool          `yaml:"allowAsyncReplicas"`
	} `yaml:"options"`
}

// parsed is a store of type redis as its settings give it, checked.
type parsed struct {
	client *redis.UniversalOptions
	cfg    config
}

// parseSpec checks c, the settings of spec, without I/O (it reads password-file) and
// returns them with their facts. Its errors name the field of spec at fault and the
// values it allows.
func parseSpec(spec store.Spec, c specConfig) (parsed, store.Facts, error) {
	uo, cfg, err := c.client(spec)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	if spec.Logger != nil {
		WithLogger(spec.Logger)(&cfg)
	}
	durability := "durability: refuses a server without appendonly yes and appendfsync always, or whose settings it cannot read, unless options.allowVolatile"
	if cfg.volatile {
		durability = "durability: accepts a server that can lose writes, with a warning (options.allowVolatile)"
	}
	replication := "replication: refuses a replica, and a master with replicas its writes do not wait for (more than options.replicas), unless options.allowAsyncReplicas; again on every new connection"
	if cfg.asyncReplicas {
		replication = "replication: refuses a replica; accepts replicas its writes do not wait for, with a warning (options.allowAsyncReplicas); again on every new connection"
	}
	if cfg.replicas > 0 {
		replication += fmt.Sprintf("; refuses a master with fewer than %d replicas (options.replicas)", cfg.replicas)
	}
	facts := store.Facts{Timeout: cfg.timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true,
		Checks: []string{"reach: reads the server's persistence settings within timeout", durability, replication}}
	if c.PasswordFile != "" && spec.Offline {
		facts.Checks = append(facts.Checks, spec.Unread("password-file", c.PasswordFile))
	}
	return parsed{client: uo, cfg: cfg}, facts, nil
}

// dialSpec makes the client of p and the store on it, which checks the server
// within ctx.
func dialSpec(ctx context.Context, _ store.Spec, p parsed) (store.RangeStore, error) {
	client := redis.NewUniversalClient(p.client)
	st, err := newStore(ctx, client, true, p.cfg)
	if err != nil {
		client.Close()
		return nil, err
	}
	return st, nil
}

// client checks the settings and returns the client's options and the store's.
func (c specConfig) client(spec store.Spec) (*redis.UniversalOptions, config, error) {
	bad := spec.Invalid
	addrs := c.Addrs
	addrField := "addrs"
	switch {
	case len(c.Sentinels) > 0 && (c.Addr != "" || len(addrs) > 0):
		return nil, config{}, bad("sentinels", "set with addr or addrs; want sentinels and master-name for a master Sentinel watches, addr for one server, or addrs for a Cluster")
	case len(c.Sentinels) > 0 && c.MasterName == "":
		return nil, config{}, bad("master-name", "missing; want the name of the master the Sentinels watch (sentinel monitor <name> …)")
	case c.MasterName != "" && len(c.Sentinels) == 0:
		return nil, config{}, bad("sentinels", "missing with master-name; want the Sentinels' host:port, such as [10.0.0.1:26379, 10.0.0.2:26379, 10.0.0.3:26379]")
	case len(c.Sentinels) > 0:
		addrs, addrField = c.Sentinels, "sentinels"
	case c.Addr != "" && len(addrs) > 0:
		return nil, config{}, bad("addr", "set with addrs; want addr for one server, or addrs for the nodes of a Cluster")
	case c.Addr != "":
		addrs = []string{c.Addr}
	case len(addrs) == 0:
		return nil, config{}, bad("addr", "missing; want host:port, such as 127.0.0.1:6379 (or addrs for a Cluster)")
	}
	for i, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			field := "addr"
			if c.Addr == "" {
				field = fmt.Sprintf("%s[%d]", addrField, i)
			}
			return nil, config{}, bad(field, "%q is not host:port: %v", a, err)
		}
	}
	switch {
	case c.DB < 0:
		return nil, config{}, bad("db", "%d; want a database number ≥ 0", c.DB)
	case c.DB > 0 && len(c.Addrs) > 0:
		return nil, config{}, bad("db", "%d with a Cluster (addrs), which has database 0 only", c.DB)
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return nil, config{}, err
	}
	cfg := buildConfig(nil)
	cfg.timeout = timeout
	if p := c.Options.Prefix; p != nil {
		if err := checkPrefix(*p); err != nil {
			return nil, config{}, bad("options.prefix", "%v", err)
		}
		cfg.prefix = *p
	}
	cfg.volatile = c.Options.AllowVolatile
	cfg.settings = spec.Path
	cfg.asyncReplicas = c.Options.AllowAsyncReplicas
	switch r, w := c.Options.Replicas, c.Options.ReplicaTimeout; {
	case r < 0:
		return nil, config{}, bad("options.replicas", "%d; want the number of replicas every write waits for, ≥ 0 (every replica the master has)", r)
	case r > 0 && w <= 0:
		return nil, config{}, bad("options.replicaTimeout", "%v with replicas %d; want how long a write waits for them, such as 500ms", w, r)
	case r == 0 && w != 0:
		return nil, config{}, bad("options.replicaTimeout", "%v without options.replicas; want replicas ≥ 1 to wait for", w)
	default:
		cfg.replicas, cfg.replicaWait = r, w
	}
	uo := &redis.UniversalOptions{
		Addrs:                 addrs,
		MasterName:            c.MasterName,
		IsClusterMode:         len(c.Addrs) > 0,
		Username:              c.Username,
		DB:                    c.DB,
		DialTimeout:           cfg.timeout,
		ReadTimeout:           cfg.timeout,
		WriteTimeout:          cfg.timeout,
		ContextTimeoutEnabled: true,
	}
	if c.PasswordFile != "" && !spec.Offline {
		b, err := os.ReadFile(string(c.PasswordFile))
		if err != nil {
			return nil, config{}, bad("password-file", "%v", err)
		}
		uo.Password = strings.TrimRight(string(b), "\r\n")
	}
	if c.TLS {
		uo.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		if len(addrs) == 1 {
			uo.TLSConfig.ServerName, _, _ = net.SplitHostPort(addrs[0])
		}
	}
	return uo, cfg, nil
}
