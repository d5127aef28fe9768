package cosid_test

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
)

// TestOpen_StoreTimeoutAboveReserveTimeoutRefused checks that Open refuses a
// segment whose reserve-timeout is below its store's timeout, configured or the
// default of the store's type, for every store type with a timeout, and names both
// settings. The stores' address answers nothing: Open learns the timeouts from the
// store types' Check, without I/O.
func TestOpen_StoreTimeoutAboveReserveTimeoutRefused(t *testing.T) {
	const nowhere = "127.0.0.1:1"
	tests := []struct {
		name      string
		store     string
		generator string
		want      string // "" when Open accepts the configuration
	}{
		{"RedisDefault", "{type: redis, addr: '" + nowhere + "'}", "{strategy: segment, store: s, reserve-timeout: 1s}",
			"reserve-timeout 1s is below the store's timeout 2s (cosid.stores.s.timeout, unset: the default of type redis)"},
		{"RedisConfigured", "{type: redis, addr: '" + nowhere + "', timeout: 4s}", "{strategy: segment, store: s}",
			"reserve-timeout 3s is below the store's timeout 4s (cosid.stores.s.timeout)"},
		{"EtcdDefault", "{type: etcd, endpoints: ['" + nowhere + "']}", "{strategy: segment, store: s, reserve-timeout: 1500ms}",
			"reserve-timeout 1.5s is below the store's timeout 2s (cosid.stores.s.timeout, unset: the default of type etcd)"},
		{"EtcdConfigured", "{type: etcd, endpoints: ['" + nowhere + "'], timeout: 5s}", "{strategy: segment, store: s}",
			"reserve-timeout 3s is below the store's timeout 5s (cosid.stores.s.timeout)"},
		{"ZooKeeperDefault", "{type: zookeeper, servers: ['" + nowhere + "']}",
			"{strategy: periodic-segment, store: s, period: YEAR_MONTH_DAY, zone: UTC, reserve-timeout: 1s}",
			"reserve-timeout 1s is below the store's timeout 2s (cosid.stores.s.timeout, unset: the default of type zookeeper)"},
		{"ZooKeeperConfigured", "{type: zookeeper, servers: ['" + nowhere + "'], timeout: 10s}", "{strategy: segment, store: s}",
			"reserve-timeout 3s is below the store's timeout 10s (cosid.stores.s.timeout)"},
		{"MongoDefault", "{type: mongodb, uri: 'mongodb://" + nowhere + "/', database: app}", "{strategy: segment, store: s, reserve-timeout: 1s}",
			"reserve-timeout 1s is below the store's timeout 2s (cosid.stores.s.timeout, unset: the default of type mongodb)"},
		{"MongoConfigured", "{type: mongodb, uri: 'mongodb://" + nowhere + "/', database: app, timeout: 6s}", "{strategy: segment, store: s}",
			"reserve-timeout 3s is below the store's timeout 6s (cosid.stores.s.timeout)"},
		{"HTTPDefault", "{type: http, url: 'http://" + nowhere + "'}", "{strategy: segment, store: s}",
			"reserve-timeout 3s is below the store's timeout 5s (cosid.stores.s.timeout, unset: the default of type http)"},
		{"HTTPConfigured", "{type: http, url: 'http://" + nowhere + "', timeout: 4s}", "{strategy: segment, store: s, reserve-timeout: 2s}",
			"reserve-timeout 2s is below the store's timeout 4s (cosid.stores.s.timeout)"},
		{"SQLDefault", "{type: sql, driver: pgx, dsn: 'postgres://cosid@" + nowhere + "/app'}", "{strategy: segment, store: s, reserve-timeout: 1s}",
			"reserve-timeout 1s is below the store's timeout 2s (cosid.stores.s.timeout, unset: the default of type sql)"},

		{"EqualTimeouts", "{type: redis, addr: '" + nowhere + "', timeout: 3s}", "{strategy: segment, store: s}", ""},
		{"HTTPDefaultUnderLongerReserveTimeout", "{type: http, url: 'http://" + nowhere + "'}", "{strategy: segment, store: s, reserve-timeout: 5s}", ""},
		{"SnowflakeHasNoReserveTimeout", "{type: http, url: 'http://" + nowhere + "', timeout: 30s}", "{strategy: snowflake, store: s}", ""},
		{"MemoryHasNoTimeout", "{type: memory}", "{strategy: segment, store: s, reserve-timeout: 1ms}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores:\n    s: " + tt.store + "\n  generators:\n    order: " + tt.generator + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if err := rt.Close(); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				rt.Close()
				t.Fatal("Open accepted the configuration")
			}
			if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), "cosid.generators.order.reserve-timeout: "+tt.want) {
				t.Errorf("Open: %v\nwant ErrConfig and %q", err, "cosid.generators.order.reserve-timeout: "+tt.want)
			}
			if verr := cfg.Validate(); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Validate = %v, want Open's error", verr)
			}
		})
	}
}

// TestCheck_EveryStoreTypeAnswersWithoutIO checks the facts that the Check of every
// store type this test links answers for settings that point at one loopback
// listener, and that nothing connected to it: Check does no I/O, so that a
// configuration loads while its stores are down, and a SQLite file is not created.
func TestCheck_EveryStoreTypeAnswersWithoutIO(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	addr := ln.Addr().String()
	sqlite := filepath.Join(t.TempDir(), "never.db")
	tests := []struct {
		typ, settings       string
		timeout, defaultOf  time.Duration
		timeoutSet, checked bool // checked: it says what it checks of the server
	}{
		{"memory", "{}", 0, 0, false, false},
		{"sql", "{driver: pgx, dsn: 'postgres://cosid@" + addr + "/app', timeout: 3s}", 3 * time.Second, 2 * time.Second, true, true},
		{"sql", "{driver: mysql, dsn: 'root@tcp(" + addr + ")/app'}", 2 * time.Second, 2 * time.Second, false, true},
		{"sql", "{driver: sqlite, dsn: '" + sqlite + "', options: {initSchema: true}}", 2 * time.Second, 2 * time.Second, false, true},
		{"redis", "{addr: '" + addr + "'}", 2 * time.Second, 2 * time.Second, false, true},
		{"etcd", "{endpoints: ['" + addr + "'], timeout: 4s}", 4 * time.Second, 2 * time.Second, true, true},
		{"zookeeper", "{servers: ['" + addr + "']}", 2 * time.Second, 2 * time.Second, false, true},
		{"mongodb", "{uri: 'mongodb://" + addr + "/', database: app, timeout: 2s}", 2 * time.Second, 2 * time.Second, true, true},
		{"http", "{url: 'http://" + addr + "'}", 5 * time.Second, 5 * time.Second, false, true},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.typ] = true
		typ, ok := store.Lookup(tt.typ)
		if !ok {
			t.Errorf("store type %q is not registered", tt.typ)
			continue
		}
		facts, err := typ.Check(testenv.Spec("s", tt.settings, slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Errorf("%s %s: Check: %v", tt.typ, tt.settings, err)
			continue
		}
		if facts.Timeout != tt.timeout || facts.DefaultTimeout != tt.defaultOf || facts.TimeoutSet != tt.timeoutSet || !facts.Leases ||
			(len(facts.Checks) > 0) != tt.checked {
			t.Errorf("%s %s: Check = %+v\nwant Timeout %v, DefaultTimeout %v, TimeoutSet %v, Leases, checks %v",
				tt.typ, tt.settings, facts, tt.timeout, tt.defaultOf, tt.timeoutSet, tt.checked)
		}
	}
	for _, typ := range store.Types() {
		if !covered[typ] && !strings.HasPrefix(typ, "test-") {
			t.Errorf("store type %q has no case here", typ)
		}
	}
	// A connection made before the probe's is accepted before it: the listener's
	// queue is in order.
	probe, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	for c := range accepted {
		c.Close()
		if c.RemoteAddr().String() == probe.LocalAddr().String() {
			break
		}
		t.Errorf("a Check connected to the stores' address, from %v", c.RemoteAddr())
	}
	if _, err := os.Stat(sqlite); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check of the sqlite store touched its file: %v", err)
	}
}
