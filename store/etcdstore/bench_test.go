package etcdstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
)

// benchStore returns a store under a prefix of its own on a client of its own, both
// closed when b ends.
func benchStore(b *testing.B) *Store {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{testenv.Server(b, testenv.Etcd)}, Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	st, err := New(c, WithPrefix("/cosid-bench/"+rand.Text()[:12]+"/"), WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// bareTxn is one bare etcd transaction of the shape of a reservation: a compare of
// the key's mod revision, a put, and a get when the compare fails. Its compare always
// holds, and its put writes a constant: it is the round trip and nothing else.
func bareTxn(c *clientv3.Client) func(ctx context.Context, key string) error {
	return func(ctx context.Context, key string) error {
		_, err := c.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), ">", -1)).
			Then(clientv3.OpPut(key, "1000")).
			Else(clientv3.OpGet(key)).
			Commit()
		return err
	}
}

// BenchmarkReserve measures Store.Reserve (impl=store) beside one bare etcd
// transaction on the same client (impl=bare), with 1 and 16 goroutines, each on a
// key of its own. Compare them with benchstat -col /impl.
func BenchmarkReserve(b *testing.B) {
	st := benchStore(b)
	for _, goroutines := range []int{1, 16} {
		for _, impl := range []struct {
			name    string
			reserve func(ctx context.Context, key string) error
		}{
			{"bare", bareTxn(st.client)},
			{"store", func(ctx context.Context, key string) error {
				_, err := st.Reserve(ctx, key, 100, 1)
				return err
			}},
		} {
			b.Run(fmt.Sprintf("g=%d/impl=%s", goroutines, impl.name), func(b *testing.B) {
				runReserves(b, goroutines, st.prefix+impl.name, false, impl.reserve)
			})
		}
	}
}

// BenchmarkReserve_HotKey reserves one key from 16 goroutines of one process: the
// store (impl=store), whose reservations of a key take turns, beside a plain loop of
// read and compare-and-swap (impl=naive), the retry storm the turns avoid. The
// misses/op metric counts the compare-and-swaps that found the key changed.
func BenchmarkReserve_HotKey(b *testing.B) {
	st := benchStore(b)
	var naiveMisses atomic.Int64
	naive := func(ctx context.Context, key string) error {
		for {
			resp, err := st.client.Get(ctx, key)
			if err != nil {
				return err
			}
			next, rev := int64(1), int64(0)
			if len(resp.Kvs) > 0 {
				v, err := parseValue(resp.Kvs[0].Value)
				if err != nil {
					return err
				}
				next, rev = v.next, resp.Kvs[0].ModRevision
			}
			txn, err := st.client.Txn(ctx).
				If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
				Then(clientv3.OpPut(key, strconv.FormatInt(next+100, 10))).
				Commit()
			if err != nil || txn.Succeeded {
				return err
			}
			naiveMisses.Add(1)
		}
	}
	for _, impl := range []struct {
		name    string
		misses  *atomic.Int64
		reserve func(ctx context.Context, key string) error
	}{
		{"naive", &naiveMisses, naive},
		{"store", &st.misses, func(ctx context.Context, key string) error {
			_, err := st.Reserve(ctx, key, 100, 1)
			return err
		}},
	} {
		b.Run("g=16/impl="+impl.name, func(b *testing.B) {
			before := impl.misses.Load()
			runReserves(b, 16, st.prefix+"hot/"+impl.name, true, impl.reserve)
			b.ReportMetric(float64(impl.misses.Load()-before)/float64(b.N), "misses/op")
		})
	}
}

// runReserves runs b.N reservations split among goroutines goroutines, each on a key
// of its own or all on one. The context can be canceled, as the one a generator
// passes to a store.
func runReserves(b *testing.B, goroutines int, prefix string, oneKey bool, reserve func(ctx context.Context, key string) error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	b.ResetTimer()
	for g := range goroutines {
		n := b.N / goroutines
		if g < b.N%goroutines {
			n++
		}
		key := prefix + "/" + strconv.Itoa(g)
		if oneKey {
			key = prefix + "/hot"
		}
		wg.Go(func() {
			for range n {
				if err := reserve(ctx, key); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkLease measures an Acquire and a Release of the one slot of a namespace,
// and a Renew of a held lease, beside one bare etcd transaction.
func BenchmarkLease(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	req := store.LeaseRequest{Namespace: "bench", OwnerKey: "a", Limit: 1, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	b.Run("op=bare", func(b *testing.B) {
		txn := bareTxn(st.client)
		for b.Loop() {
			if err := txn(ctx, st.prefix+"bare"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=acquire+release", func(b *testing.B) {
		for b.Loop() {
			l, err := st.Acquire(ctx, req)
			if err == nil {
				err = st.Release(ctx, l, l.Floor-1)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=renew", func(b *testing.B) {
		l, err := st.Acquire(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { st.Release(ctx, l, l.Floor-1) }()
		for b.Loop() {
			if l, err = st.Renew(ctx, l, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
}
