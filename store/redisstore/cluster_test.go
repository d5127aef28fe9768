package redisstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// startCluster starts a Redis Cluster of one durable node that serves every hash
// slot. One node is enough to check the keys: a script whose keys lie in two hash
// slots fails with CROSSSLOT on it as on many.
func startCluster(t *testing.T) string {
	t.Helper()
	srv := startServer(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	admin := newClient(t, srv.addr)
	if err := admin.Do(t.Context(), "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := admin.ClusterInfo(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "cluster_state:ok") {
			return srv.addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not come up within 30s:\n%s", info)
		}
		<-time.After(20 * time.Millisecond)
	}
}

// TestCluster_Kits runs both test kits through Cluster clients, each store with a
// client of its own: every script's keys share one hash slot, and New checks the
// durability of the cluster's masters.
func TestCluster_Kits(t *testing.T) {
	t.Parallel()
	addr := startCluster(t)
	open := func(t *testing.T, opts ...redisstore.Option) *redisstore.Store {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, ContextTimeoutEnabled: true})
		t.Cleanup(func() { c.Close() })
		st, err := redisstore.New(c, append([]redisstore.Option{redisstore.WithTimeout(testTimeout), redisstore.WithLogger(nil)}, opts...)...)
		if err != nil {
			t.Fatalf("New on a cluster: %v", err)
		}
		return st
	}
	t.Run("Ranges", func(t *testing.T) {
		storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return open(t) })
	})
	t.Run("Leases", func(t *testing.T) {
		clock := new(redisstore.ClockOffset)
		storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
			return movedStore{open(t, redisstore.WithClockOffset(clock)), clock}
		}, storetest.WithSlotRows(open(t).SlotRecords))
	})
}

// TestConfig_Cluster opens a configured store whose addrs name a Cluster's node: the
// store reaches the cluster through a Cluster client, checks its master, and serves.
func TestConfig_Cluster(t *testing.T) {
	t.Parallel()
	addr := startCluster(t)
	typ, _ := store.Lookup("redis")
	open := typ.Open
	st, err := open(t.Context(), spec("addrs: ["+addr+"]\ntimeout: 5s"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, err := st.Reserve(t.Context(), "cluster", 3, 1); err != nil || r != (store.Range{Start: 1, End: 4}) {
		t.Errorf("Reserve = %v, %v; want [1, 4)", r, err)
	}
	req := store.LeaseRequest{Namespace: "cluster", OwnerKey: "a", Limit: 2, Tolerance: time.Second, TTL: time.Minute, Preferred: 1}
	if l, err := st.(store.SlotLeaseStore).Acquire(t.Context(), req); err != nil || l.Slot != 1 {
		t.Errorf("Acquire = slot %d, %v; want slot 1", l.Slot, err)
	}
	if name := st.(*redisstore.Store).String(); !strings.Contains(name, "cluster") {
		t.Errorf("the store calls itself %q, want it to say it is on a cluster", name)
	}
}

// TestCluster_ReplicasRefusedWithoutReplicas asks a Cluster client to wait for a
// replica on each master: the one-node cluster has none, so New refuses, as every
// write would fail.
func TestCluster_ReplicasRefusedWithoutReplicas(t *testing.T) {
	t.Parallel()
	addr := startCluster(t)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, ContextTimeoutEnabled: true})
	defer c.Close()
	_, err := redisstore.New(c, redisstore.WithReplicas(1, 50*time.Millisecond), redisstore.WithLogger(nil))
	if !errors.Is(err, redisstore.ErrTooFewReplicas) {
		t.Errorf("New waiting for 1 replica on a cluster without replicas = %v; want ErrTooFewReplicas", err)
	}
}
