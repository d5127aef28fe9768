package etcdstore_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/etcdstore"
)

// TestReserve_OneProcessTakesTurns reserves one key from 16 goroutines of one store:
// they take turns, so no compare-and-swap misses and no range overlaps.
func TestReserve_OneProcessTakesTurns(t *testing.T) {
	st := openStore(t, endpoint(t), newPrefix())
	const goroutines, each = 16, 20
	var mu sync.Mutex
	var ranges []store.Range
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				r, err := st.Reserve(t.Context(), "hot", 10, 0)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ranges = append(ranges, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if m := st.Misses(); m != 0 {
		t.Errorf("%d compare-and-swaps missed in %d reservations of one process, want 0", m, goroutines*each)
	}
	seen := map[int64]bool{}
	for _, r := range ranges {
		if seen[r.Start] || r.Start%10 != 0 || r.Start >= goroutines*each*10 {
			t.Errorf("range %v repeats or lies off the grid", r)
		}
		seen[r.Start] = true
	}
}

// TestReserve_OtherProcessCostsOneMiss checks the store's knowledge of a key: a
// write by another process costs the next reservation one miss, which brings the
// key's value, and no range twice.
func TestReserve_OtherProcessCostsOneMiss(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	a, b := openStore(t, ep, prefix), openStore(t, ep, prefix)
	ctx := t.Context()
	want := []struct {
		st   *etcdstore.Store
		r    store.Range
		miss int64
	}{
		{a, store.Range{Start: 1, End: 11}, 0},
		{a, store.Range{Start: 11, End: 21}, 0},
		{b, store.Range{Start: 21, End: 31}, 1}, // b guessed the key absent
		{a, store.Range{Start: 31, End: 41}, 1},
		{a, store.Range{Start: 41, End: 51}, 1},
	}
	for i, w := range want {
		r, err := w.st.Reserve(ctx, "k", 10, 1)
		if err != nil || r != w.r {
			t.Fatalf("reservation %d = %v, %v; want %v", i, r, err, w.r)
		}
		if m := w.st.Misses(); m != w.miss {
			t.Errorf("after reservation %d the store missed %d times, want %d", i, m, w.miss)
		}
	}
}

// TestReserve_S5_GuessReadBeforeExhausted reserves, with an initial offset that
// leaves no room, a key this store never saw and another made: the store reads the
// key instead of believing its guess that the key is new.
func TestReserve_S5_GuessReadBeforeExhausted(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	a, b := openStore(t, ep, prefix), openStore(t, ep, prefix)
	if _, err := a.Reserve(t.Context(), "k", 5, 0); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Reserve(t.Context(), "k", 10, math.MaxInt64-3); err != nil || r != (store.Range{Start: 5, End: 15}) {
		t.Errorf("Reserve = %v, %v; want [5, 15)", r, err)
	}
	if _, err := b.Reserve(t.Context(), "new", 10, math.MaxInt64-3); !errors.Is(err, store.ErrExhausted) {
		t.Errorf("Reserve of a new key past MaxInt64: %v, want ErrExhausted", err)
	}
}

// meddlingKV is a client's KV that writes a key before every transaction it commits,
// as a busy process would.
type meddlingKV struct {
	clientv3.KV
	key   string
	other clientv3.KV
	txns  atomic.Int64
}

func (m *meddlingKV) Txn(ctx context.Context) clientv3.Txn {
	return meddlingTxn{m.KV.Txn(ctx), m, ctx}
}

type meddlingTxn struct {
	clientv3.Txn
	m   *meddlingKV
	ctx context.Context
}

func (t meddlingTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	return meddlingTxn{t.Txn.If(cs...), t.m, t.ctx}
}
func (t meddlingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	return meddlingTxn{t.Txn.Then(ops...), t.m, t.ctx}
}
func (t meddlingTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	return meddlingTxn{t.Txn.Else(ops...), t.m, t.ctx}
}

func (t meddlingTxn) Commit() (*clientv3.TxnResponse, error) {
	t.m.txns.Add(1)
	if _, err := t.m.other.Put(t.ctx, t.m.key, "1000"); err != nil {
		return nil, err
	}
	return t.Txn.Commit()
}

// TestReserve_BoundedRetries reserves a key that another process writes before each
// of the store's transactions: the reservation gives up with ErrContention when the
// store's timeout runs out, and reserves nothing.
func TestReserve_BoundedRetries(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	c := newClient(t, ep)
	m := &meddlingKV{KV: c.KV, key: prefix + "k/next", other: newClient(t, ep)}
	c.KV = m
	st, err := etcdstore.New(c, etcdstore.WithPrefix(prefix), etcdstore.WithTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Reserve(t.Context(), "k", 10, 0)
	if !errors.Is(err, etcdstore.ErrContention) || !strings.Contains(err.Error(), `"k"`) {
		t.Fatalf("Reserve = %v, %v; want an error wrapping ErrContention that names the key", r, err)
	}
	if n := m.txns.Load(); n < 2 {
		t.Errorf("%d transactions, want retries", n)
	}
	if resp, err := c.Get(t.Context(), m.key); err != nil || string(resp.Kvs[0].Value) != "1000" {
		t.Errorf("the key holds %v (%v), want the other process's 1000", resp, err)
	}
}

// TestReserve_CorruptValue reserves and seals keys that hold values the store never
// writes: each call fails with ErrCorrupt naming the key, and the value stays.
func TestReserve_CorruptValue(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	st, c := openStore(t, ep, prefix), newClient(t, ep)
	for _, v := range []string{"", "12abc", "-5", "007", "9223372036854775808", "5 sealed ", "sealed"} {
		key := "bad/" + v
		if _, err := c.Put(t.Context(), prefix+key+"/next", v); err != nil {
			t.Fatal(err)
		}
		if r, err := st.Reserve(t.Context(), key, 1, 0); !errors.Is(err, etcdstore.ErrCorrupt) || !strings.Contains(err.Error(), key) {
			t.Errorf("Reserve of a key holding %q = %v, %v; want ErrCorrupt naming the key", v, r, err)
		}
		if err := st.Seal(t.Context(), key); !errors.Is(err, etcdstore.ErrCorrupt) {
			t.Errorf("Seal of a key holding %q: %v, want ErrCorrupt", v, err)
		}
	}
}

// TestNew_BadOptions checks that New refuses what it cannot serve, naming it.
func TestNew_BadOptions(t *testing.T) {
	c := newClient(t, "127.0.0.1:1") // New does no I/O: no server needed
	tests := []struct {
		name    string
		opts    []etcdstore.Option
		mention string
	}{
		{"EmptyPrefix", []etcdstore.Option{etcdstore.WithPrefix("")}, "prefix"},
		{"PrefixWithNUL", []etcdstore.Option{etcdstore.WithPrefix("/a\x00/")}, "prefix"},
		{"PrefixNotUTF8", []etcdstore.Option{etcdstore.WithPrefix("/\xff/")}, "prefix"},
		{"LongPrefix", []etcdstore.Option{etcdstore.WithPrefix(strings.Repeat("p", 129))}, "prefix"},
		{"ZeroTimeout", []etcdstore.Option{etcdstore.WithTimeout(0)}, "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := etcdstore.New(c, tc.opts...); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("New: %v, want ErrInvalidArgument naming %q", err, tc.mention)
			}
		})
	}
	if _, err := etcdstore.New(nil); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("New(nil): %v, want ErrInvalidArgument", err)
	}
	st, err := etcdstore.New(c)
	if err != nil || st.Prefix() != etcdstore.DefaultPrefix || st.Timeout() != etcdstore.DefaultTimeout {
		t.Errorf("New = %v, %v; want prefix %q and timeout %v", st, err, etcdstore.DefaultPrefix, etcdstore.DefaultTimeout)
	}
}

// TestClose_LeavesClientOpen closes a store on the application's client: its calls
// fail with store.ErrClosed, and the client still serves.
func TestClose_LeavesClientOpen(t *testing.T) {
	ep := endpoint(t)
	c := newClient(t, ep)
	st, err := etcdstore.New(c, etcdstore.WithPrefix(newPrefix()))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "k", 1, 0); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Reserve after Close: %v, want store.ErrClosed", err)
	}
	if _, err := st.Acquire(t.Context(), leaseRequest("ns", "a", time.Minute)); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Acquire after Close: %v, want store.ErrClosed", err)
	}
	if _, err := c.Get(t.Context(), "/cosid-test/"); err != nil {
		t.Errorf("the client after the store's Close: %v", err)
	}
}
