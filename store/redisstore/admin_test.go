package redisstore_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestAdminKit runs the admin test kit on the durable server with stores of
// clients of their own, as two processes would, and through Cluster clients, where
// every script's keys must share one hash slot.
func TestAdminKit(t *testing.T) {
	t.Run("durable", func(t *testing.T) {
		t.Parallel()
		addr := durable(t)
		prefix := testPrefix(t, addr)
		storetest.RunAdmin(t, func(t *testing.T) store.Admin { return openStore(t, addr, redisstore.WithPrefix(prefix)) })
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		addr := startCluster(t)
		storetest.RunAdmin(t, func(t *testing.T) store.Admin {
			c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, ContextTimeoutEnabled: true})
			t.Cleanup(func() { c.Close() })
			st, err := redisstore.New(c, redisstore.WithTimeout(testTimeout), redisstore.WithLogger(nil))
			if err != nil {
				t.Fatalf("New on a cluster: %v", err)
			}
			return st
		})
	})
}

func keyNames(t *testing.T, st *redisstore.Store, prefix string, page int) []string {
	t.Helper()
	var names []string
	for ki, err := range store.AllKeys(t.Context(), st, prefix, page) {
		if err != nil {
			t.Fatalf("AllKeys(%q): %v", prefix, err)
		}
		names = append(names, ki.Key)
	}
	return names
}

// TestKeys_StaleIndexEntriesSkipped puts index entries of keys that do not exist (as
// a failure between the index write and the key's creation leaves) among real keys:
// every page is still full until the last, so that AllKeys lists every key.
func TestKeys_StaleIndexEntriesSkipped(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	st := openStore(t, addr, redisstore.WithPrefix(prefix))
	c := newClient(t, addr)
	var want []string
	for i := range 12 {
		key := fmt.Sprintf("k/%02d", i)
		if i%4 == 1 {
			if _, err := st.Reserve(t.Context(), key, 1, 0); err != nil {
				t.Fatal(err)
			}
			want = append(want, key)
			continue
		}
		if err := c.ZAdd(t.Context(), redisstore.IndexName(prefix), redis.Z{Member: key}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, page := range []int{1, 2, 3} {
		if got := keyNames(t, st, "k/", page); !slices.Equal(got, want) {
			t.Errorf("keys in pages of %d = %q, want %q", page, got, want)
		}
	}
}

// TestKeys_IndexFollowsWrites checks that every write that creates a key indexes it,
// also after a Delete by the same store, and that Delete removes its entry.
func TestKeys_IndexFollowsWrites(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	st := openStore(t, addr, redisstore.WithPrefix(prefix))
	ctx := t.Context()
	steps := []struct {
		name  string
		write func() error
		want  []store.KeyInfo
	}{
		{"Seal", func() error { return st.Seal(ctx, "sealed") }, []store.KeyInfo{{Key: "sealed", Sealed: true}}},
		{"Reserve", func() error { _, err := st.Reserve(ctx, "r", 4, 1); return err },
			[]store.KeyInfo{{Key: "r", Next: 5}, {Key: "sealed", Sealed: true}}},
		{"DeleteSealed", func() error { return st.Delete(ctx, "sealed") }, []store.KeyInfo{{Key: "r", Next: 5}}},
		{"Delete", func() error { return st.Delete(ctx, "r") }, nil},
		{"ReserveAfterDelete", func() error { _, err := st.Reserve(ctx, "r", 2, 0); return err }, []store.KeyInfo{{Key: "r", Next: 2}}},
		{"RaiseTo", func() error { _, err := st.RaiseTo(ctx, "up", 9); return err }, []store.KeyInfo{{Key: "r", Next: 2}, {Key: "up", Next: 9}}},
	}
	c := newClient(t, addr)
	for _, s := range steps {
		if err := s.write(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got, err := st.Keys(ctx, "", "", 10)
		if err != nil || !slices.Equal(got, s.want) {
			t.Fatalf("after %s: Keys = %v, %v; want %v", s.name, got, err, s.want)
		}
		if n := c.ZCard(ctx, redisstore.IndexName(prefix)).Val(); n != int64(len(s.want)) {
			t.Errorf("after %s: the index holds %d entries, want %d", s.name, n, len(s.want))
		}
	}
}

// TestRaiseTo_ExactPast2p53 raises keys whose values doubles cannot tell apart: the
// script compares them as decimal text, so it never lowers one and never misses a
// raise by one.
func TestRaiseTo_ExactPast2p53(t *testing.T) {
	addr := durable(t)
	st := openStore(t, addr, redisstore.WithPrefix(testPrefix(t, addr)))
	const p53 = int64(1) << 53
	tests := []struct {
		name        string
		from, to    int64
		wantChanged bool
	}{
		{"OneAbove2p53", p53, p53 + 1, true},
		{"OneBelowKept", p53 + 1, p53, false},
		{"ShorterKept", 1_000_000_000_000_000_000, 999_999_999_999_999_999, false},
		{"LongerRaised", 999, 1000, true},
		{"NearMax", math.MaxInt64 - 1, math.MaxInt64, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := st.RaiseTo(t.Context(), tc.name, tc.from); err != nil {
				t.Fatal(err)
			}
			r, err := st.RaiseTo(t.Context(), tc.name, tc.to)
			want := store.Raised{Key: tc.name, Before: tc.from, After: max(tc.from, tc.to)}
			if err != nil || r != want || r.Changed() != tc.wantChanged {
				t.Errorf("RaiseTo(%d) from %d = %+v, %v; want %+v", tc.to, tc.from, r, err, want)
			}
		})
	}
}

// TestRaiseFloor_RefusesFloorPast2p53 refuses a floor the lease scripts, whose
// numbers are doubles, could not count exactly.
func TestRaiseFloor_RefusesFloorPast2p53(t *testing.T) {
	addr := durable(t)
	st := openStore(t, addr, redisstore.WithPrefix(testPrefix(t, addr)))
	req := store.FloorRequest{Namespace: "ns", Limit: 2, Slot: 1, FloorMs: 1 << 53}
	if _, err := st.RaiseFloor(t.Context(), req); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("RaiseFloor to 2^53 = %v, want ErrInvalidArgument", err)
	}
	req.FloorMs--
	if info, err := st.RaiseFloor(t.Context(), req); err != nil || info.NextFloor != req.FloorMs {
		t.Errorf("RaiseFloor to 2^53-1 = %+v, %v", info, err)
	}
}
