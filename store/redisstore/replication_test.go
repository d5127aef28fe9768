package redisstore_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// TestReplicationGate_Redis opens stores on masters of the test's own with replicas
// and checks what New says: a master with a replica the writes do not wait for is
// refused (ErrAsyncReplicas), also when the server's own min-replicas-to-write
// guards it, and also when the writes wait for one replica of two, since a failover
// may promote the other (measured: 96,700 ids twice); waiting for every replica is
// accepted; waiting for more replicas than the master has is refused
// (ErrTooFewReplicas), as every write would fail; allowAsyncReplicas accepts the
// risk with a warning that names it.
func TestReplicationGate_Redis(t *testing.T) {
	t.Parallel()
	one := startServer(t, "--repl-diskless-sync-delay", "0")
	startReplica(t, one)
	guarded := startServer(t, "--repl-diskless-sync-delay", "0", "--min-replicas-to-write", "1", "--min-replicas-max-lag", "1")
	startReplica(t, guarded)
	two := startServer(t, "--repl-diskless-sync-delay", "0")
	startReplica(t, two)
	startReplica(t, two)
	wait := func(n int) redisstore.Option { return redisstore.WithReplicas(n, time.Second) }
	tests := []struct {
		name    string
		master  *server
		opts    []redisstore.Option
		want    error    // nil: accepted
		mention []string // in the error, or in the warning of an accepted risk
	}{
		{"ReplicaNotWaitedForRefused", one, nil, redisstore.ErrAsyncReplicas,
			[]string{"1 connected replicas", "writes wait for 0", "same ids", "replicas: 1", "allowAsyncReplicas"}},
		{"MinReplicasToWriteWithoutStoreWaitRefused", guarded, nil, redisstore.ErrAsyncReplicas, []string{"replicas: 1", "allowAsyncReplicas"}},
		{"WaitForOneOfTwoRefused", two, []redisstore.Option{wait(1)}, redisstore.ErrAsyncReplicas, []string{"2 connected replicas", "wait for 1", "replicas: 2"}},
		{"WaitForTheReplicaAccepted", one, []redisstore.Option{wait(1)}, nil, nil},
		{"WaitForBothReplicasAccepted", two, []redisstore.Option{wait(2)}, nil, nil},
		{"WaitForMoreThanTheMasterHasRefused", one, []redisstore.Option{wait(2)}, redisstore.ErrTooFewReplicas, []string{"1 connected replicas", "waits for 2", "every write would fail"}},
		{"AsyncOptInAcceptedWithWarning", two, []redisstore.Option{wait(1), redisstore.WithAsyncReplicas()}, nil,
			[]string{"level=WARN", "allowAsyncReplicas", "2 replicas, writes wait for 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			opts := append([]redisstore.Option{redisstore.WithTimeout(testTimeout), redisstore.WithPrefix("gate:"),
				redisstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))}, tc.opts...)
			st, err := redisstore.New(newClient(t, tc.master.addr), opts...)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("New = %v; want an error wrapping %v", err, tc.want)
				}
				mentions(t, err.Error(), tc.mention)
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer st.Close()
			if _, err := st.Reserve(t.Context(), "k", 10, 0); err != nil {
				t.Errorf("Reserve on an accepted master: %v", err)
			}
			if tc.mention == nil && log.Len() > 0 {
				t.Errorf("New on a safe master logged %q", log.String())
			}
			mentions(t, log.String(), tc.mention)
		})
	}
}

// TestReplicationGate_RedisRecheckAfterReconnect opens a store on a master without
// replicas (accepted), attaches a replica, and drops the store's connections: the
// first write after the reconnect checks again and is refused with
// ErrAsyncReplicas, before its script runs; waiting for that replica would have
// kept it.
func TestReplicationGate_RedisRecheckAfterReconnect(t *testing.T) {
	t.Parallel()
	master := startServer(t, "--repl-diskless-sync-delay", "0")
	st := openStore(t, master.addr, redisstore.WithPrefix("recheck:"))
	if _, err := st.Reserve(t.Context(), "k", 10, 0); err != nil {
		t.Fatalf("Reserve without replicas: %v", err)
	}
	startReplica(t, master)
	admin := newClient(t, master.addr)
	if err := admin.Do(t.Context(), "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	var err error
	for range 3 { // the first call may meet the killed connection
		if _, err = st.Reserve(t.Context(), "k", 10, 0); errors.Is(err, redisstore.ErrAsyncReplicas) {
			break
		}
	}
	if !errors.Is(err, redisstore.ErrAsyncReplicas) {
		t.Fatalf("Reserve after a replica attached and the store reconnected = %v; want ErrAsyncReplicas", err)
	}
	if got, _ := admin.HGet(t.Context(), redisstore.RangeKey("recheck:", "k"), "next").Result(); got != "10" {
		t.Errorf("next = %q after the refused reserves, want 10: a refused write must not run", got)
	}
}

// TestReplicationGate_RedisWaitCommandFallback checks which command the store
// waits with: WAITAOF where the server has it (Redis 7.2 and later), which waits
// for the replicas' fsync, else WAIT; the test server's version decides which this
// run checks, and a write waited for either way reaches the replica.
func TestReplicationGate_RedisWaitCommandFallback(t *testing.T) {
	t.Parallel()
	master := startServer(t, "--repl-diskless-sync-delay", "0")
	startReplica(t, master)
	admin := newClient(t, master.addr)
	has, err := admin.Do(t.Context(), "COMMAND", "INFO", "WAITAOF").Slice()
	if err != nil {
		t.Fatal(err)
	}
	want := len(has) == 1 && has[0] != nil
	var log bytes.Buffer
	st, err := redisstore.New(newClient(t, master.addr), redisstore.WithTimeout(testTimeout), redisstore.WithReplicas(1, testTimeout),
		redisstore.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !strings.Contains(log.String(), fmt.Sprintf("waitAOF=%v", want)) {
		t.Errorf("the server has WAITAOF: %v; the store logged %q, want waitAOF=%v", want, log.String(), want)
	}
	if _, err := admin.ConfigResetStat(t.Context()).Result(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "fallback", 1, 0); err != nil {
		t.Fatalf("Reserve waiting for the replica: %v", err)
	}
	stats, err := admin.Info(t.Context(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	used := "cmdstat_wait:"
	if want {
		used = "cmdstat_waitaof:"
	}
	if !strings.Contains(stats, used) {
		t.Errorf("the store did not wait with %s:\n%s", strings.TrimSuffix(used, ":"), stats)
	}
}

// TestConfig_ReplicationSettings checks the YAML settings of replication: replicas
// and replicaTimeout open a store that waits for the replica, allowAsyncReplicas
// opens one that does not, and bad combinations are refused before any I/O, naming
// the field.
func TestConfig_ReplicationSettings(t *testing.T) {
	t.Parallel()
	master := startServer(t, "--repl-diskless-sync-delay", "0")
	startReplica(t, master)
	for _, yaml := range []string{"options: { replicas: 1, replicaTimeout: 2s }", "options: { allowAsyncReplicas: true }"} {
		st, err := openSpec(t, "addr: "+master.addr+"\n"+yaml)
		if err != nil {
			t.Fatalf("%s: %v", yaml, err)
		}
		if _, err := st.Reserve(t.Context(), "k", 1, 0); err != nil {
			t.Errorf("%s: Reserve: %v", yaml, err)
		}
		st.Close()
	}
	refusedSpec(t, "addr: "+master.addr, redisstore.ErrAsyncReplicas, "cosid.stores.cache", "replicas: 1", "allowAsyncReplicas")
	for _, tc := range []struct{ name, yaml, mention string }{
		{"ReplicasNegative", "addr: a:1\noptions: { replicas: -1 }", "options.replicas"},
		{"ReplicasWithoutTimeout", "addr: a:1\noptions: { replicas: 1 }", "options.replicaTimeout"},
		{"TimeoutWithoutReplicas", "addr: a:1\noptions: { replicaTimeout: 1s }", "options.replicaTimeout"},
		{"SentinelsWithAddr", "addr: a:1\nsentinels: [b:1]\nmaster-name: m", "sentinels"},
		{"SentinelsWithoutMasterName", "sentinels: [b:1]", "master-name"},
		{"MasterNameWithoutSentinels", "master-name: m", "sentinels"},
		{"SentinelWithoutPort", "sentinels: [b:1, c]\nmaster-name: m", "sentinels[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) { refusedSpec(t, tc.yaml, store.ErrInvalidArgument, tc.mention) })
	}
}

// FuzzParseReplication checks that the reader of INFO replication never panics,
// and that a master it accepts has a count of replicas.
func FuzzParseReplication(f *testing.F) {
	f.Add("# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=127.0.0.1,port=1,state=online,offset=1,lag=0\r\n")
	f.Add("role:slave\r\nmaster_host:127.0.0.1\r\n")
	f.Add("role:master\r\nconnected_slaves:-1\r\n")
	f.Add("connected_slaves:1\r\n")
	f.Fuzz(func(t *testing.T, info string) {
		r, err := redisstore.ParseReplication(info)
		if err == nil && r.Role == "master" && r.Replicas < 0 {
			t.Errorf("ParseReplication(%q) = %+v, a negative count", info, r)
		}
	})
}

// openSpec opens a store of type redis from its YAML settings.
func openSpec(t *testing.T, yaml string) (store.RangeStore, error) {
	t.Helper()
	typ, _ := store.Lookup("redis")
	open := typ.Open
	return open(t.Context(), testenv.Spec("cache", yaml, discard()))
}

// refusedSpec checks that the settings yaml are refused with an error wrapping want
// that mentions each of mention.
func refusedSpec(t *testing.T, yaml string, want error, mention ...string) {
	t.Helper()
	st, err := openSpec(t, yaml)
	if err == nil {
		st.Close()
		t.Fatalf("opened\n%s\nwant an error", yaml)
	}
	if !errors.Is(err, want) {
		t.Errorf("%v; want an error wrapping %v", err, want)
	}
	mentions(t, err.Error(), mention)
}
