package testenv

import (
	"slices"
	"testing"
	"time"
)

// Interleave times bare and op in turn, b.N times each, and reports the median of
// each and their ratio (op-p50/bare-p50). Run in turn, both meet the same load of a
// shared machine, where two benchmarks run one after the other may not.
func Interleave(b *testing.B, bare, op func() error) {
	b.Helper()
	bareT, opT := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	for b.Loop() {
		for _, f := range []struct {
			fn func() error
			ts *[]time.Duration
		}{{bare, &bareT}, {op, &opT}} {
			start := time.Now()
			if err := f.fn(); err != nil {
				b.Fatal(err)
			}
			*f.ts = append(*f.ts, time.Since(start))
		}
	}
	median := func(ts []time.Duration) float64 {
		slices.Sort(ts)
		return float64(ts[len(ts)/2].Nanoseconds())
	}
	bm, om := median(bareT), median(opT)
	b.ReportMetric(bm, "bare-p50-ns")
	b.ReportMetric(om, "op-p50-ns")
	b.ReportMetric(om/bm, "op/bare")
}
