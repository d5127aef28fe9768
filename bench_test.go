package cosid_test

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid"
)

// BenchmarkRuntime compares the ways to an id with the generator's own Next and with
// the baselines, a bare atomic add and the add with strconv as the text: a held
// Source (an atomic load of the built generator, its Next, and for the text its
// codec), and Runtime.Next and NextInt by name (the Source's lookup first).
//
// The text runs each take a generator of their own, whose ids count from 1 as the
// baseline's counter does, so that both write numbers of one width: on order, after
// the runs before them, the ids have a digit more than the baseline's numbers, and
// a string of 9 bytes takes a block of the allocator's of its own where two of 8
// share one (16 B/op against 7), which was half the gap of the text to its baseline.
func BenchmarkRuntime(b *testing.B) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: {mem: {type: memory}}\n  generators:\n" +
		"    order: {strategy: segment, store: mem}\n    sourcetext: {strategy: segment, store: mem}\n    runtimetext: {strategy: segment, store: mem}\n"))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(b.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	seg, err := rt.Segment(b.Context(), "order")
	if err != nil {
		b.Fatal(err)
	}
	baselines(b)
	b.Run("SegmentNext", func(b *testing.B) {
		for b.Loop() {
			if _, err := seg.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
	src, err := rt.Source("order", "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.Run("SourceNextInt", func(b *testing.B) {
		for b.Loop() {
			if _, err := src.NextInt(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, name := range []string{"sourcetext", "runtimetext"} {
		if err := rt.Build(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
	text := source(b, rt, "sourcetext", "")
	b.Run("SourceNext", func(b *testing.B) {
		for b.Loop() {
			if _, err := text.Next(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RuntimeNextInt", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.NextInt(ctx, "order"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RuntimeNext", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.Next(ctx, "runtimetext"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkID_JSON compares a JSON round trip (Marshal, then Unmarshal) of a
// struct holding an ID, written as a string, with that of the same struct holding
// an int64, written as a number: the baseline.
func BenchmarkID_JSON(b *testing.B) {
	type withInt struct {
		ID int64 `json:"id"`
	}
	type withID struct {
		ID cosid.ID `json:"id"`
	}
	const v = 920213737330208768
	b.Run("int64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(withInt{ID: v})
			if err != nil {
				b.Fatal(err)
			}
			var back withInt
			if err := json.Unmarshal(data, &back); err != nil || back.ID != v {
				b.Fatal(back, err)
			}
		}
	})
	b.Run("ID", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(withID{ID: v})
			if err != nil {
				b.Fatal(err)
			}
			var back withID
			if err := json.Unmarshal(data, &back); err != nil || back.ID != v {
				b.Fatal(back, err)
			}
		}
	})
}

// BenchmarkTextIDs sets the text path of a cosid-generator (NextStamp and its
// format) beside the int path of a Snowflake (NextInt) and its decimal text, in one
// run with a bare atomic add and the add with strconv. Both generators have a
// fixed machine and 16 bits of sequence (65,536 ids per millisecond), so that
// neither waits for the clock where the other does not.
func BenchmarkTextIDs(b *testing.B) {
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  generators:
    snow: { strategy: snowflake, machine-id: 7, timestamp-bits: 41, machine-bits: 6, sequence-bits: 16 }
    r62: { strategy: cosid-generator, machine-id: 7 }
    r36: { strategy: cosid-generator, machine-id: 7, format: radix36 }
    friendly: { strategy: cosid-generator, machine-id: 7, format: friendly, zone: Asia/Shanghai }
`))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(b.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	ctx := b.Context()
	baselines(b)
	snow := source(b, rt, "snow", "")
	b.Run("SnowflakeNextInt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := snow.NextInt(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SnowflakeNext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := snow.Next(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, name := range []string{"r62", "r36", "friendly"} {
		src := source(b, rt, name, "")
		b.Run("CosIDGenerator_"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := src.Next(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// baselines runs the baselines of an id in one process: a bare atomic add, and the
// add with strconv as its text.
func baselines(b *testing.B) {
	b.Run("AtomicAdd", func(b *testing.B) {
		var n atomic.Int64
		for b.Loop() {
			n.Add(1)
		}
	})
	b.Run("AtomicAddFormat", func(b *testing.B) {
		var n atomic.Int64
		for b.Loop() {
			_ = strconv.FormatInt(n.Add(1), 10)
		}
	})
}
