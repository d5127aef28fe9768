package segment_test

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/memstore"
)

// paddedCounter is the baseline: a bare atomic counter on a cache line of its own.
type paddedCounter struct {
	_ [64]byte
	n atomic.Int64
	_ [64]byte
}

var sink int64

func BenchmarkAtomicAdd(b *testing.B) {
	var c paddedCounter
	for b.Loop() {
		sink = c.n.Add(1)
	}
}

func BenchmarkAtomicAddParallel(b *testing.B) {
	var c paddedCounter
	parallel(b, func(n int) int64 {
		var v int64
		for range n {
			v = c.n.Add(1)
		}
		return v
	})
}

// parallel runs body on GOMAXPROCS goroutines, b.N calls in all, each goroutine
// counting its share in a local. It does not use b.RunParallel: testing.PB writes a
// counter of its own on every call, and when the allocator puts two goroutines' PBs
// on one cache line, as it does in some runs, the run is several times slower
// whatever the body does.
func parallel(b *testing.B, body func(n int) int64) {
	b.ReportAllocs()
	procs := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range procs {
		n := b.N / procs
		if i < b.N%procs {
			n++
		}
		wg.Go(func() { atomic.AddInt64(&sink, body(n)) })
	}
	wg.Wait()
}

func benchGenerator(b *testing.B) *segment.Generator {
	g, err := segment.New(memstore.New(), "bench", segment.DefaultBatchPolicy(), segment.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}

func BenchmarkNext(b *testing.B) {
	g := benchGenerator(b)
	b.ReportAllocs()
	for b.Loop() {
		v, err := g.Next()
		if err != nil {
			b.Fatal(err)
		}
		sink = v
	}
}

func BenchmarkNextParallel(b *testing.B) {
	g := benchGenerator(b)
	parallel(b, func(n int) int64 {
		var v int64
		for range n {
			var err error
			if v, err = g.Next(); err != nil {
				b.Error(err)
				return 0
			}
		}
		return v
	})
}

// BenchmarkTryNext is Next as a caller that wraps a Generator makes it, as cosid's
// Source does: TryNext, inlined, and Next when it has no id at hand. Beside
// BenchmarkNext, it is what the inlined hot path saves of a call.
func BenchmarkTryNext(b *testing.B) {
	g := benchGenerator(b)
	b.ReportAllocs()
	for b.Loop() {
		v, ok := g.TryNext()
		if !ok {
			var err error
			if v, err = g.Next(); err != nil {
				b.Fatal(err)
			}
		}
		sink = v
	}
}

// BenchmarkTryNextParallel is BenchmarkTryNext on every P: TryNext's
// compare-and-swap, which returns false when another caller took the id first,
// beside BenchmarkNextParallel's add.
func BenchmarkTryNextParallel(b *testing.B) {
	g := benchGenerator(b)
	parallel(b, func(n int) int64 {
		var v int64
		for range n {
			var ok bool
			if v, ok = g.TryNext(); ok {
				continue
			}
			var err error
			if v, err = g.Next(); err != nil {
				b.Error(err)
				return 0
			}
		}
		return v
	})
}

// BenchmarkNext_SlowStore runs Next on a store that takes 20ms a reservation, after a
// second of warm-up, and reports the P99.99 and the worst latency of a call. Each call
// is timed, so ns/op includes two clock reads. BenchmarkAtomicAdd_Timed is its
// baseline: what the machine alone adds to the tail of a call that cannot wait.
func BenchmarkNext_SlowStore(b *testing.B) {
	st := newTestStore()
	st.delay = 20 * time.Millisecond
	g, err := segment.New(st, "bench", segment.DefaultBatchPolicy(), segment.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	for warm := time.Now().Add(time.Second); time.Now().Before(warm); {
		for range 1000 {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	}
	timed(b, func() int64 {
		v, err := g.Next()
		if err != nil {
			b.Fatal(err)
		}
		return v
	})
}

func BenchmarkAtomicAdd_Timed(b *testing.B) {
	var c paddedCounter
	timed(b, func() int64 { return c.n.Add(1) })
}

// timed runs call b.N times, timing each, and reports the P99.99 and the worst.
func timed(b *testing.B, call func() int64) {
	var h latencies
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		v := call()
		h.add(time.Since(start))
		sink = v
	}
	b.ReportMetric(float64(h.quantile(0.9999).Nanoseconds()), "p99.99-ns")
	b.ReportMetric(float64(h.max.Nanoseconds()), "max-ns")
}

// latencies is a histogram with 10ns buckets up to 100µs, and the exact values beyond.
type latencies struct {
	buckets [10_000]int64
	over    []time.Duration
	n       int64
	max     time.Duration
}

func (h *latencies) add(d time.Duration) {
	h.n++
	h.max = max(h.max, d)
	if i := d / 10; i < time.Duration(len(h.buckets)) {
		h.buckets[i]++
		return
	}
	h.over = append(h.over, d)
}

func (h *latencies) quantile(q float64) time.Duration {
	rank := int64(q * float64(h.n))
	for i, c := range h.buckets {
		if rank -= c; rank < 0 {
			return time.Duration(i+1) * 10
		}
	}
	slices.Sort(h.over)
	return h.over[min(int(rank), len(h.over)-1)]
}

// BenchmarkPeriodicNext measures the hot path of a Periodic: a clock read on top of
// Generator.Next; BenchmarkTimeNow is its baseline.
func BenchmarkPeriodicNext(b *testing.B) {
	p, err := segment.NewPeriodic(memstore.New(), "bench", segment.YearMonthDay, time.UTC,
		segment.DefaultBatchPolicy(), segment.DefaultPeriodicPolicy(), segment.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.ReportAllocs()
	for b.Loop() {
		id, err := p.Next()
		if err != nil {
			b.Fatal(err)
		}
		sink = id.Value
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for b.Loop() {
		sink = time.Now().UnixNano()
	}
}
