package cosid_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// liveKeys is how many keys the benchmarks of a keyed template hold live.
const liveKeys = 100_000

func openKeyedBench(b *testing.B, maxLive int) (*cosid.Runtime, store.RangeStore) {
	b.Helper()
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  namespace: bench\n  stores: {mem: {type: memory}}\n  generators:\n" +
		"    tenant: {strategy: segment, store: mem, keyed: true, max-live-keys: " + strconv.Itoa(maxLive) + "}\n" +
		"    bill: {strategy: periodic-segment, store: mem, keyed: true, period: YEAR_MONTH_DAY, zone: UTC, max-live-keys: " + strconv.Itoa(maxLive) + "}\n"))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(b.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	st, err := rt.Store(b.Context(), "mem")
	if err != nil {
		b.Fatal(err)
	}
	return rt, st
}

func keyName(i int) string { return "tenant-" + strconv.Itoa(i) }

// keyInt is the next id of key of the keyed generator name, by name: the Source
// made for the call, as a server makes one a request.
func keyInt(ctx context.Context, rt *cosid.Runtime, name, key string) (int64, error) {
	src, err := rt.Source(name, key)
	if err != nil {
		return 0, err
	}
	return src.NextInt(ctx)
}

// BenchmarkKeyed_LiveKey times the next id of a key that is live, among 100,000
// live keys, by name (a Source made for each call) and from a held Source, beside
// its baseline: a lookup in a map of as many keys and an atomic add, bare and under
// a mutex (the lock a key's call takes for the order of use).
func BenchmarkKeyed_LiveKey(b *testing.B) {
	ctx := context.Background()
	rt, _ := openKeyedBench(b, cosid.DefaultMaxLiveKeys)
	names := make([]string, liveKeys)
	counters := make(map[string]*atomic.Int64, liveKeys)
	for i := range names {
		names[i] = keyName(i)
		counters[names[i]] = new(atomic.Int64)
		if _, err := keyInt(ctx, rt, "tenant", names[i]); err != nil {
			b.Fatal(err)
		}
	}
	held, err := rt.Source("tenant", names[7])
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	b.Run("baseline/MapAtomicAdd", func(b *testing.B) {
		i := 0
		for b.Loop() {
			counters[names[i%liveKeys]].Add(1)
			i++
		}
	})
	b.Run("baseline/MutexMapAtomicAdd", func(b *testing.B) {
		i := 0
		for b.Loop() {
			mu.Lock()
			c := counters[names[i%liveKeys]]
			mu.Unlock()
			c.Add(1)
			i++
		}
	})
	b.Run("NextInt/held-source", func(b *testing.B) {
		for b.Loop() {
			if _, err := held.NextInt(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NextInt/by-name/one-key", func(b *testing.B) {
		for b.Loop() {
			if _, err := keyInt(ctx, rt, "tenant", names[7]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NextInt/by-name/all-keys", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := keyInt(ctx, rt, "tenant", names[i%liveKeys]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("Next/held-source", func(b *testing.B) {
		for b.Loop() {
			if _, err := held.Next(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel/baseline/MutexMapAtomicAdd", func(b *testing.B) {
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := int(n.Add(1))
				mu.Lock()
				c := counters[names[i%liveKeys]]
				mu.Unlock()
				c.Add(1)
			}
		})
	})
	b.Run("parallel/NextInt/by-name/all-keys", func(b *testing.B) {
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := keyInt(ctx, rt, "tenant", names[int(n.Add(1))%liveKeys]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkKeyed_MemoryPerKey opens 100,000 keys of a segment template (tenant)
// and of a periodic one (bill), takes an id of each, lets them idle and reports the heap they hold, in bytes a key, beside the baseline of a map
// of as many keys to an atomic counter. Run it with -benchtime=1x: each iteration
// opens every key.
func BenchmarkKeyed_MemoryPerKey(b *testing.B) {
	ctx := context.Background()
	names := make([]string, liveKeys)
	for i := range names {
		names[i] = keyName(i)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	b.Run("baseline/MapAtomicInt64", func(b *testing.B) {
		for b.Loop() {
			before := heap()
			counters := make(map[string]*atomic.Int64)
			for _, name := range names {
				counters[name] = new(atomic.Int64)
				counters[name].Add(1)
			}
			after := heap()
			b.ReportMetric(float64(after-before)/liveKeys, "bytes/key")
			runtime.KeepAlive(counters)
		}
	})
	// The memory store keeps every key it reserved in this process; the Next run
	// counts that too, which a store of its own process does not cost.
	b.Run("baseline/MemoryStoreReserve", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			_, st := openKeyedBench(b, cosid.DefaultMaxLiveKeys)
			before := heap()
			// The timer runs over the reservations, as over Next's below: with it
			// stopped for the whole iteration, b.N would grow without end.
			b.StartTimer()
			for _, name := range names {
				if _, err := st.Reserve(ctx, "bench/tenant/"+name, 100, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			after := heap()
			b.ReportMetric(float64(after-before)/liveKeys, "bytes/key")
			runtime.KeepAlive(st)
			b.StartTimer()
		}
	})
	for _, gen := range []string{"tenant", "bill"} {
		b.Run("Next/"+gen, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				rt, _ := openKeyedBench(b, cosid.DefaultMaxLiveKeys)
				before := heap()
				b.StartTimer()
				for _, name := range names {
					src, err := rt.Source(gen, name)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := src.Next(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				after := heap()
				if ks := rt.Stats(gen).Keys; ks.Live != liveKeys {
					b.Fatalf("%d live keys; want %d", ks.Live, liveKeys)
				}
				b.ReportMetric(float64(after-before)/liveKeys, "bytes/key")
				rt.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkKeyed_FirstID times the first id of a new key, which opens the key's
// generator and waits for its first reservation, beside a bare Reserve of a new key
// on the same store: the one store round trip it needs.
func BenchmarkKeyed_FirstID(b *testing.B) {
	ctx := context.Background()
	rt, st := openKeyedBench(b, cosid.DefaultMaxLiveKeys)
	b.Run("baseline/Reserve", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := st.Reserve(ctx, "bench/bare/"+keyName(i), 100, 1); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("NextInt/new-key", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := keyInt(ctx, rt, "tenant", "new-"+keyName(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
