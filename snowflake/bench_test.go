package snowflake_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store/memstore"
)

// The generator's hot path beside a bare atomic counter, the floor of any id
// generator in one process. The comparisons with bwmarrin/snowflake and
// sony/sonyflake, modules of their own, are in bench/snowflakebase.

var sink int64

// wide is a layout whose ceiling does not bind: 2^18 ids per millisecond.
func wide() snowflake.Layout {
	l := snowflake.DefaultLayout()
	l.MachineBits, l.SequenceBits = 4, 18
	return l
}

func benchFixed(b *testing.B, l snowflake.Layout) *snowflake.Generator {
	g, err := snowflake.NewFixed(1, l, snowflake.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}

func benchLeased(b *testing.B, l snowflake.Layout) *snowflake.Generator {
	g, err := snowflake.New(b.Context(), memstore.New(), l, snowflake.WithLogger(nil), snowflake.WithOwnerKey("bench"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}

// reportRate reports the ids made per millisecond, to set beside the layout's
// ceiling (4,096 for 12 sequence bits).
func reportRate(b *testing.B) {
	if ms := float64(b.Elapsed()) / float64(time.Millisecond); ms > 0 {
		b.ReportMetric(float64(b.N)/ms, "ids/ms")
	}
}

func runNext(b *testing.B, next func() int64) {
	b.ReportAllocs()
	for b.Loop() {
		sink = next()
	}
	reportRate(b)
}

func runNextParallel(b *testing.B, next func() int64) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var v int64
		for pb.Next() {
			v = next()
		}
		atomic.AddInt64(&sink, v)
	})
	reportRate(b)
}

func nextOf(b *testing.B, g *snowflake.Generator) func() int64 {
	return func() int64 {
		v, err := g.Next()
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
}

// BenchmarkTimeNow is what one clock read costs, for scale.
func BenchmarkTimeNow(b *testing.B) {
	for b.Loop() {
		sink = time.Now().UnixNano()
	}
}

// BenchmarkAtomicAdd is the baseline: one atomic add per id, as the generator's
// sequence within a millisecond is.
func BenchmarkAtomicAdd(b *testing.B) {
	var n atomic.Int64
	runNext(b, func() int64 { return n.Add(1) })
}

// BenchmarkAtomicAddParallel is BenchmarkAtomicAdd from every P at once, on one
// shared counter.
func BenchmarkAtomicAddParallel(b *testing.B) {
	var n atomic.Int64
	runNextParallel(b, func() int64 { return n.Add(1) })
}

func BenchmarkNext_Default(b *testing.B) {
	runNext(b, nextOf(b, benchFixed(b, snowflake.DefaultLayout())))
}

func BenchmarkNextParallel_Default(b *testing.B) {
	runNextParallel(b, nextOf(b, benchFixed(b, snowflake.DefaultLayout())))
}

func BenchmarkNext_Seq18(b *testing.B) { runNext(b, nextOf(b, benchFixed(b, wide()))) }

// BenchmarkNext_Seq18Leased is BenchmarkNext_Seq18 with a leased machine, whose
// first id of every Unit also checks the clock against the store's.
func BenchmarkNext_Seq18Leased(b *testing.B) { runNext(b, nextOf(b, benchLeased(b, wide()))) }

func BenchmarkNextParallel_Seq18(b *testing.B) { runNextParallel(b, nextOf(b, benchFixed(b, wide()))) }
