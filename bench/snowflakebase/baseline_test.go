// Package snowflakebase holds the Snowflake generator's comparison benchmarks: the
// baselines are modules of their own (bwmarrin/snowflake, sony/sonyflake), which the
// core module does not require.
package snowflakebase_test

import (
	"sync/atomic"
	"testing"
	"time"

	bwmarrin "github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake"

	"github.com/cosid-go/cosid/snowflake"
)

// The baselines run in the same run as the generator: bwmarrin/snowflake (a mutex
// and a monotonic clock read per id) and sony/sonyflake (256 ids per 10ms), at their
// own layouts and, for bwmarrin, at the layout of the generator benchmark beside it.

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

// bwmarrinNode returns a bwmarrin node with the given bits; bwmarrin reads them from
// package variables when it makes a node.
func bwmarrinNode(b *testing.B, nodeBits, stepBits uint8) *bwmarrin.Node {
	defer func(n, s uint8) { bwmarrin.NodeBits, bwmarrin.StepBits = n, s }(bwmarrin.NodeBits, bwmarrin.StepBits)
	bwmarrin.NodeBits, bwmarrin.StepBits = nodeBits, stepBits
	bwmarrin.Epoch = snowflake.DefaultLayout().Epoch.UnixMilli()
	n, err := bwmarrin.NewNode(1)
	if err != nil {
		b.Fatal(err)
	}
	return n
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

func BenchmarkNext_Default(b *testing.B) {
	runNext(b, nextOf(b, benchFixed(b, snowflake.DefaultLayout())))
}

func BenchmarkBwmarrin_Default(b *testing.B) {
	n := bwmarrinNode(b, 10, 12)
	runNext(b, func() int64 { return n.Generate().Int64() })
}

func BenchmarkNextParallel_Default(b *testing.B) {
	runNextParallel(b, nextOf(b, benchFixed(b, snowflake.DefaultLayout())))
}

func BenchmarkBwmarrinParallel_Default(b *testing.B) {
	n := bwmarrinNode(b, 10, 12)
	runNextParallel(b, func() int64 { return n.Generate().Int64() })
}

func BenchmarkNext_Seq18(b *testing.B) { runNext(b, nextOf(b, benchFixed(b, wide()))) }

func BenchmarkBwmarrin_Seq18(b *testing.B) {
	n := bwmarrinNode(b, 4, 18)
	runNext(b, func() int64 { return n.Generate().Int64() })
}

func BenchmarkNextParallel_Seq18(b *testing.B) { runNextParallel(b, nextOf(b, benchFixed(b, wide()))) }

func BenchmarkBwmarrinParallel_Seq18(b *testing.B) {
	n := bwmarrinNode(b, 4, 18)
	runNextParallel(b, func() int64 { return n.Generate().Int64() })
}

func sonyflakeNext(b *testing.B) func() int64 {
	sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (uint16, error) { return 1, nil }})
	if err != nil {
		b.Fatal(err)
	}
	return func() int64 {
		v, err := sf.NextID()
		if err != nil {
			b.Fatal(err)
		}
		return int64(v)
	}
}

func BenchmarkSonyflake(b *testing.B) { runNext(b, sonyflakeNext(b)) }

func BenchmarkSonyflakeParallel(b *testing.B) { runNextParallel(b, sonyflakeNext(b)) }
