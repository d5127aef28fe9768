package redisstore_test

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// startReplica starts a durable replica of master and returns once its link to the
// master is up.
func startReplica(t *testing.T, master *server) *server {
	t.Helper()
	host, port, _ := strings.Cut(master.addr, ":")
	r := startServer(t, "--replicaof", host, port)
	c := newClient(t, r.addr)
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := c.Info(t.Context(), "replication").Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "master_link_status:up") {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not reach its master within 30s:\n%s", info)
		}
		<-time.After(20 * time.Millisecond)
	}
}

// TestReplicas_WaitForReplicas runs every operation on a master with one replica:
// waiting for that replica, each succeeds and the replica holds the write; with the
// replica stopped (connected, but confirming nothing), each fails with
// ErrNotReplicated and hands out nothing.
func TestReplicas_WaitForReplicas(t *testing.T) {
	t.Parallel()
	master := startServer(t, "--repl-diskless-sync-delay", "0")
	replica := startReplica(t, master)
	for _, tc := range []struct {
		name     string
		replicas int
		wait     time.Duration // long where the replica confirms, short where it must run out
		want     error
	}{{"Confirming", 1, testTimeout, nil}, {"Stopped", 1, 200 * time.Millisecond, redisstore.ErrNotReplicated}} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := fmt.Sprintf("r%s:", tc.name)
			st := openStore(t, master.addr, redisstore.WithPrefix(prefix), redisstore.WithReplicas(tc.replicas, tc.wait))
			if tc.want != nil {
				replica.cmd.Process.Signal(syscall.SIGSTOP)
				t.Cleanup(func() { replica.cmd.Process.Signal(syscall.SIGCONT) })
			}
			ctx := t.Context()
			check := func(op string, err error) {
				t.Helper()
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("%s waiting for %d replicas: %v, want %v", op, tc.replicas, err, tc.want)
				}
			}
			if err := newClient(t, master.addr).ScriptFlush(ctx).Err(); err != nil { // the scripts load again, waited for too
				t.Fatal(err)
			}
			r, err := st.Reserve(ctx, "k", 10, 5)
			check("Reserve", err)
			if tc.want != nil && r != (store.Range{}) {
				t.Errorf("Reserve handed out %v although too few replicas confirmed it", r)
			}
			req := store.LeaseRequest{Namespace: "ns", OwnerKey: "a", Limit: 2, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
			l, err := st.Acquire(ctx, req)
			check("Acquire", err)
			if tc.want != nil {
				return
			}
			_, err = st.Renew(ctx, l, time.Hour)
			check("Renew", err)
			check("Release", st.Release(ctx, l, l.Floor))
			got, err := newClient(t, replica.addr).HGet(ctx, redisstore.RangeKey(prefix, "k"), "next").Result()
			if err != nil || got != "15" {
				t.Errorf("the replica holds next %q, %v; want 15, as soon as Reserve returned", got, err)
			}
		})
	}
}

// TestReplicas_BadSettings checks that New refuses settings of WithReplicas it cannot
// keep, before it touches the server.
func TestReplicas_BadSettings(t *testing.T) {
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer plain.Close()
	for _, tc := range []struct {
		name    string
		client  redis.UniversalClient
		opt     redisstore.Option
		mention string
	}{
		{"Negative", plain, redisstore.WithReplicas(-1, time.Second), "replicas -1"},
		{"NoWait", plain, redisstore.WithReplicas(1, 0), "wait 0s"},
		{"Ring", ring, redisstore.WithReplicas(1, time.Second), "Ring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redisstore.New(tc.client, tc.opt)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("New = %v, want an error wrapping ErrInvalidArgument that mentions %q", err, tc.mention)
			}
		})
	}
}
