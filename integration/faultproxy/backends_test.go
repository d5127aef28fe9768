package faultproxy_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

// backend is a server the harness runs the stores on: its store type, where its
// address is, and how its store's settings reach it through a proxy.
type backend struct {
	name string // the subtest's name
	env  string // the variable that holds the server's address or DSN
	typ  string // the store type, as in a configuration
	// split returns the host:port in v, the variable's value.
	split func(v string) (string, error)
	// settings returns the store's YAML settings for the server of v reached at
	// addr, with table names or a key prefix of the run's own made from suffix.
	settings func(v, addr, suffix string) string
	// drop removes what a run with suffix left on the server of v.
	drop func(ctx context.Context, v, suffix string) error
	// ttl is the Snowflake lease the store can keep: etcd's leases count whole
	// seconds, 2 s at least.
	ttl time.Duration
}

// storeTimeout bounds each call of the children's stores.
const storeTimeout = time.Second

var backends = []backend{
	{
		name: "postgresql", env: testenv.Postgres, typ: "sql", ttl: 1500 * time.Millisecond,
		split: func(v string) (string, error) {
			u, err := url.Parse(v)
			if err != nil || u.Host == "" {
				return "", fmt.Errorf("want a URL with a host: %v", err)
			}
			return u.Host, nil
		},
		settings: func(v, addr, suffix string) string {
			u, _ := url.Parse(v)
			u.Host = addr
			return sqlSettings("pgx", u.String(), suffix)
		},
		drop: func(ctx context.Context, v, suffix string) error { return dropTables(ctx, "pgx", v, suffix) },
	},
	{
		name: "mariadb", env: testenv.MySQL, typ: "sql", ttl: 1500 * time.Millisecond,
		split: func(v string) (string, error) {
			m := mysqlAddr.FindStringSubmatch(v)
			if m == nil {
				return "", fmt.Errorf("want a DSN with tcp(host:port)")
			}
			return m[1], nil
		},
		settings: func(v, addr, suffix string) string {
			return sqlSettings("mysql", mysqlAddr.ReplaceAllLiteralString(v, "tcp("+addr+")"), suffix)
		},
		drop: func(ctx context.Context, v, suffix string) error { return dropTables(ctx, "mysql", v, suffix) },
	},
	{
		name: "redis", env: testenv.RedisDurable, typ: "redis", ttl: 1500 * time.Millisecond,
		split: hostPort,
		settings: func(_, addr, suffix string) string {
			return fmt.Sprintf("addr: %q\ntimeout: %v\noptions: { prefix: %q }\n", addr, storeTimeout, "f"+suffix+":")
		},
		drop: func(ctx context.Context, v, suffix string) error {
			c := redis.NewClient(&redis.Options{Addr: v})
			defer c.Close()
			keys, err := c.Keys(ctx, "f"+suffix+":*").Result()
			if err != nil || len(keys) == 0 {
				return err
			}
			return c.Del(ctx, keys...).Err()
		},
	},
	{
		name: "etcd", env: testenv.Etcd, typ: "etcd", ttl: 3 * time.Second,
		split: hostPort,
		settings: func(_, addr, suffix string) string {
			return fmt.Sprintf("endpoints: [%q]\ntimeout: %v\noptions: { prefix: %q }\n", addr, storeTimeout, "/f"+suffix+"/")
		},
		drop: func(ctx context.Context, v, suffix string) error {
			c, err := clientv3.New(clientv3.Config{Endpoints: []string{v}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = c.Delete(ctx, "/f"+suffix+"/", clientv3.WithPrefix())
			return err
		},
	},
}

// backendNamed returns the backend of that name.
func backendNamed(t *testing.T, name string) backend {
	for _, b := range backends {
		if b.name == name {
			return b
		}
	}
	t.Fatalf("no backend %q", name)
	return backend{}
}

var mysqlAddr = regexp.MustCompile(`tcp\(([^)]*)\)`)

func hostPort(v string) (string, error) {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return "", err
	}
	return v, nil
}

// sqlSettings are the settings of a SQL store on tables of the run's own.
func sqlSettings(driver, dsn, suffix string) string {
	return fmt.Sprintf("driver: %s\ndsn: %s\ntimeout: %v\noptions: { initSchema: true, rangeTable: f_range_%s, slotTable: f_slot_%s, namespaceTable: f_ns_%s }\n",
		driver, strconv.Quote(dsn), storeTimeout, suffix, suffix, suffix)
}

func dropTables(ctx context.Context, driver, dsn, suffix string) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, n := range []string{"f_range_", "f_slot_", "f_ns_"} {
		if _, err := db.ExecContext(ctx, "drop table if exists "+n+suffix); err != nil {
			return err
		}
	}
	return nil
}

// setup returns a proxy in front of b's server and a job whose store reaches the
// server through it, on tables or keys of the run's own, removed at the end.
func setup(t *testing.T, b backend) (*faultproxy.Proxy, job) {
	t.Helper()
	v := testenv.Server(t, b.env)
	target, err := b.split(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", b.env, v, err)
	}
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	suffix := strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.drop(ctx, v, suffix); err != nil {
			t.Logf("removing the run's data from %s: %v", b.name, err)
		}
	})
	return p, newJob(b.typ, b.settings(v, p.Addr(), suffix), "fault/"+suffix, b.ttl)
}

// eachBackend runs body on each backend, in parallel, with a proxy in front of its
// server and a job on tables or keys of its own, for COSID_FAULT_SECONDS (default
// 20).
func eachBackend(t *testing.T, body func(t *testing.T, p *faultproxy.Proxy, j job, secs float64)) {
	secs := seconds(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			p, j := setup(t, b)
			body(t, p, j, secs)
		})
	}
}
