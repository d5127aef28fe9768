package faultproxy_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// sentinelMaster is the name the Sentinels of the tests give their master.
const sentinelMaster = "cosid"

// redisNode is a redis-server of a replicated topology, on a port and a directory
// of its own that it keeps across restarts.
type redisNode struct {
	*ownServer
	addr, port string
	dir        string
	priority   int               // replica-priority: 0 is never promoted
	proxy      *faultproxy.Proxy // its stream from the first master, which the test holds; nil once restarted
}

// redisTopology is a master, its replicas and three Sentinels (quorum 2) that fail
// the master over when it stops answering for a second.
type redisTopology struct {
	t         *testing.T
	bin       string
	nodes     []*redisNode
	sentinels []string
}

// newRedisTopology starts a master with extra server settings, and replicas of it,
// one for each priority, each streaming through a proxy of its own, then three
// Sentinels, and returns once the Sentinels know every replica and each other.
func newRedisTopology(t *testing.T, masterArgs []string, priorities ...int) *redisTopology {
	t.Helper()
	needFailover(t)
	testenv.Server(t, testenv.RedisDurable) // the family of tests this machine runs
	rt := &redisTopology{t: t, bin: program(t, "redis-server")}
	master := rt.node(100)
	rt.start(master, masterArgs...)
	for _, p := range priorities {
		r := rt.node(p)
		proxy, err := faultproxy.New(master.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
		r.proxy = proxy
		host, port, _ := net.SplitHostPort(proxy.Addr())
		rt.start(r, "--replicaof", host, port)
	}
	until(t, 30*time.Second, "every replica's link up", func() bool {
		return rt.connectedReplicas(master.addr) == len(priorities)
	})
	for range 3 {
		port := strconv.Itoa(freePort(t))
		dir := t.TempDir()
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %s\nbind 127.0.0.1\ndir %s\nsentinel monitor %s 127.0.0.1 %s 2\n"+
			"sentinel down-after-milliseconds %s 1000\nsentinel failover-timeout %s 3000\nsentinel parallel-syncs %s 2\n",
			port, dir, sentinelMaster, master.port, sentinelMaster, sentinelMaster, sentinelMaster)
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + port
		s := &ownServer{t: t, args: []string{rt.bin, conf, "--sentinel"}, up: pinger(addr)}
		s.start()
		t.Cleanup(s.crash)
		rt.sentinels = append(rt.sentinels, addr)
	}
	until(t, 30*time.Second, "the Sentinels know every replica and each other", func() bool {
		for _, a := range rt.sentinels {
			c := redis.NewSentinelClient(&redis.Options{Addr: a})
			replicas, err1 := c.Replicas(context.Background(), sentinelMaster).Result()
			others, err2 := c.Sentinels(context.Background(), sentinelMaster).Result()
			c.Close()
			if err1 != nil || err2 != nil || len(replicas) != len(priorities) || len(others) != 2 {
				return false
			}
		}
		return true
	})
	return rt
}

// node makes a node with replica-priority p.
func (rt *redisTopology) node(p int) *redisNode {
	port := strconv.Itoa(freePort(rt.t))
	n := &redisNode{addr: "127.0.0.1:" + port, port: port, dir: rt.t.TempDir(), priority: p}
	rt.nodes = append(rt.nodes, n)
	return n
}

// start starts n on its port and directory, keeping every write (AOF, fsync
// always), with args added.
func (rt *redisTopology) start(n *redisNode, args ...string) {
	rt.t.Helper()
	n.ownServer = &ownServer{t: rt.t, up: pinger(n.addr), args: append([]string{rt.bin, "--bind", "127.0.0.1", "--port", n.port,
		"--dir", n.dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--repl-diskless-sync-delay", "0",
		"--replica-priority", strconv.Itoa(n.priority)}, args...)}
	n.start()
	rt.t.Cleanup(n.crash)
}

// pinger returns the up check of a server at addr: PING answers.
func pinger(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		return c.Ping(ctx).Err()
	}
}

// connectedReplicas returns the connected_slaves of the server at addr, -1 when it
// does not answer.
func (rt *redisTopology) connectedReplicas(addr string) int {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	info, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		return -1
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "connected_slaves:"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return -1
}

// master returns the address the Sentinels give of the master, "" when none of
// them answers.
func (rt *redisTopology) master() string {
	for _, a := range rt.sentinels {
		c := redis.NewSentinelClient(&redis.Options{Addr: a, MaxRetries: -1})
		hp, err := c.GetMasterAddrByName(context.Background(), sentinelMaster).Result()
		c.Close()
		if err == nil && len(hp) == 2 {
			return net.JoinHostPort(hp[0], hp[1])
		}
	}
	return ""
}

// nodeAt returns the node at addr.
func (rt *redisTopology) nodeAt(addr string) *redisNode {
	for _, n := range rt.nodes {
		if n.addr == addr {
			return n
		}
	}
	rt.t.Fatalf("no node at %s", addr)
	return nil
}

// opener opens a store through the Sentinels, from YAML settings as a user would
// write them, with options added to its options.
func (rt *redisTopology) opener(options string) opener {
	openType, _ := store.Lookup("redis")
	open := openType.Open
	yaml := fmt.Sprintf("sentinels: [%s]\nmaster-name: %s\ntimeout: %v\noptions: { prefix: \"f:\", %s }\n",
		strings.Join(rt.sentinels, ", "), sentinelMaster, storeTimeout, options)
	return func(ctx context.Context) (store.RangeStore, error) {
		return open(ctx, testenv.Spec("failover", yaml, slog.New(slog.DiscardHandler)))
	}
}

// failover holds the stream of the replica lagging (if not nil) for lagTime while
// the load goes on, kills the master with SIGKILL, drops what the proxy held, and
// waits until the Sentinels name another master. With rejoin, it restarts the old
// master as a replica of the new one and waits until the new master has want
// replicas again, as the store that waits for every replica needs.
func (rt *redisTopology) failover(lagging *redisNode, rejoin bool, want int) {
	rt.t.Helper()
	time.Sleep(time.Second) // sleep-ok: a second of load before the failover
	old := rt.master()
	if lagging != nil && lagging.proxy != nil {
		lagging.proxy.Set(faultproxy.Hold, 0)
		time.Sleep(lagTime) // sleep-ok: the lag window, under load
	}
	killed := rt.nodeAt(old)
	killed.crash()
	for _, n := range rt.nodes {
		if n.proxy != nil {
			n.proxy.Close() // never delivers what it held
			n.proxy = nil
		}
	}
	var now string
	until(rt.t, 30*time.Second, "the Sentinels promote a replica", func() bool {
		now = rt.master()
		return now != "" && now != old && rt.connectedReplicas(now) >= 0
	})
	if !rejoin {
		return
	}
	host, port, _ := net.SplitHostPort(now)
	rt.start(killed, "--replicaof", host, port)
	until(rt.t, 30*time.Second, "the old master rejoins as a replica", func() bool {
		return rt.connectedReplicas(now) == want
	})
}

// redisFailovers runs the harness's load through rounds failovers and returns the
// report.
func redisFailovers(t *testing.T, rt *redisTopology, open opener, rounds int, lagging *redisNode, rejoin bool, want int) failoverReport {
	t.Helper()
	logs := failoverLoad(t, open, "order", rounds, func(int) { rt.failover(lagging, rejoin, want) })
	rep := checkRanges(logs)
	rep.Failovers = rounds
	return rep
}

// redisRefused fails t unless a store opened with open is refused by the
// replication gate with ErrAsyncReplicas, naming the setting and the opt-in.
func redisRefused(t *testing.T, open opener, mention ...string) {
	t.Helper()
	st, err := open(t.Context())
	if err == nil {
		st.Close()
		t.Fatal("the gate accepted a master with replicas the writes do not wait for")
	}
	if !errors.Is(err, redisstore.ErrAsyncReplicas) {
		t.Fatalf("open failed with %v; want redisstore.ErrAsyncReplicas", err)
	}
	for _, m := range append(mention, "allowAsyncReplicas: true") {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("the refusal %q does not say %q", err, m)
		}
	}
	t.Logf("refused: %v", err)
}

// TestFailover_RedisSentinelWaitAll_NoIdTwice runs a master with two replicas
// under Sentinel, with stores that wait for both (options.replicas: 2), and fails
// it over again and again: the Sentinels promote a replica, the old master rejoins
// as a replica of it. No id is held twice; reserves fail while the new master has
// fewer replicas than the stores wait for.
func TestFailover_RedisSentinelWaitAll_NoIdTwice(t *testing.T) {
	t.Parallel()
	rt := newRedisTopology(t, nil, 100, 100)
	rep := redisFailovers(t, rt, rt.opener("replicas: 2, replicaTimeout: 500ms"), failoverRounds(t, 2), rt.nodes[1], true, 2)
	noIDTwice(t, rep)
}

// TestFailover_RedisNoWait_OptIn_DuplicatesShowGateNeeded: the gate refuses a
// master with a replica that the writes do not wait for; with the opt-in, one
// failover to the lagging replica hands out ids twice.
func TestFailover_RedisNoWait_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	rt := newRedisTopology(t, nil, 100)
	redisRefused(t, rt.opener("replicas: 0"), "1 connected replicas", "replicas: 1")
	duplicatesShown(t, redisFailovers(t, rt, rt.opener("allowAsyncReplicas: true"), 1, rt.nodes[1], false, 0))
}

// TestFailover_RedisMinReplicasToWrite_OptIn_DuplicatesShowGateNeeded: the
// server's own min-replicas-to-write 1 / min-replicas-max-lag 1, without the
// store's wait, is refused too; with the opt-in, one failover hands out ids
// twice, as the server lets writes through for the first second or two of a lag.
func TestFailover_RedisMinReplicasToWrite_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	rt := newRedisTopology(t, []string{"--min-replicas-to-write", "1", "--min-replicas-max-lag", "1"}, 100)
	redisRefused(t, rt.opener("replicas: 0"), "1 connected replicas", "replicas: 1")
	duplicatesShown(t, redisFailovers(t, rt, rt.opener("allowAsyncReplicas: true"), 1, rt.nodes[1], false, 0))
}

// TestFailover_RedisWaitOneOfTwo_OptIn_DuplicatesShowGateNeeded: waiting for one
// replica of two is refused; with the opt-in, the replica that never lags confirms
// every write, the lagging one is promoted (the other may not be: priority 0), and
// one failover hands out ids twice.
func TestFailover_RedisWaitOneOfTwo_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	rt := newRedisTopology(t, nil, 100, 0)
	redisRefused(t, rt.opener("replicas: 1, replicaTimeout: 500ms"), "2 connected replicas", "replicas: 2")
	// The replica of priority 0 streams through its proxy too, which passes: only
	// the lagging one is held.
	duplicatesShown(t, redisFailovers(t, rt, rt.opener("replicas: 1, replicaTimeout: 500ms, allowAsyncReplicas: true"), 1, rt.nodes[1], false, 0))
}
