package segment

import (
	"testing"
	"time"
	"unsafe"
)

func TestBatchPolicy_Size(t *testing.T) {
	p := BatchPolicy{Step: 100, Lookahead: time.Second, MaxBatch: 10_000, ReserveTimeout: time.Second}
	tests := []struct {
		rate float64
		need int64
		want int64
	}{
		{0, 1, 100},           // unknown rate: Step
		{50, 1, 100},          // slower than Step a lookahead: Step
		{101, 1, 200},         // rounded up to Step
		{2500, 1, 2500},       // exactly a multiple
		{1e9, 1, 10_000},      // capped at MaxBatch
		{0, 150, 200},         // NextRange: at least need, rounded up
		{1e9, 50_000, 50_000}, // NextRange beyond MaxBatch
		{1e300, 1, 10_000},    // no overflow
	}
	for _, tc := range tests {
		if got := p.size(tc.rate, tc.need); got != tc.want {
			t.Errorf("size(rate %v, need %d) = %d, want %d", tc.rate, tc.need, got, tc.want)
		}
	}
	p.Lookahead = 0
	if got := p.size(1e9, 1); got != 100 {
		t.Errorf("Lookahead 0: size = %d, want Step", got)
	}
}

func TestBatchPolicy_PrefetchAt(t *testing.T) {
	p := BatchPolicy{Step: 10, Lookahead: time.Second}
	tests := []struct {
		size int64
		rate float64
		want int64
	}{
		{100, 0, 99},   // unknown rate: at the last id
		{100, 30, 70},  // 30 left last a second
		{100, 100, 0},  // the whole range lasts a lookahead: at once
		{100, 1e9, 0},  // faster still
		{100, 0.5, 99}, // less than an id a lookahead: at the last id
	}
	for _, tc := range tests {
		if got := p.prefetchAt(tc.size, tc.rate); got != tc.want {
			t.Errorf("prefetchAt(size %d, rate %v) = %d, want %d", tc.size, tc.rate, got, tc.want)
		}
	}
	p.Lookahead = 0
	if got := p.prefetchAt(100, 1e9); got != -1 {
		t.Errorf("Lookahead 0: prefetchAt = %d, want -1 (never)", got)
	}
}

func TestNormalize_MaxBatch(t *testing.T) {
	tests := []struct{ step, maxBatch, want int64 }{
		{100, 0, 1_048_500},
		{1, 0, 1 << 20},
		{10_000, 0, 10_000_000},
		{100, 250, 200},
		{7, 7, 7},
		{1 << 62, 0, 1 << 62},
	}
	for _, tc := range tests {
		p := BatchPolicy{Step: tc.step, MaxBatch: tc.maxBatch, ReserveTimeout: time.Second}
		got, err := p.normalize()
		if err != nil || got.MaxBatch != tc.want {
			t.Errorf("Step %d MaxBatch %d: normalized to %d, %v; want %d", tc.step, tc.maxBatch, got.MaxBatch, err, tc.want)
		}
	}
}

func TestRateMeter(t *testing.T) {
	var m rateMeter
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	window := 100 * time.Millisecond
	steps := []struct {
		at     time.Duration
		issued int64
		want   float64
	}{
		{0, 0, 0},                                    // first request: no rate yet
		{time.Millisecond, 10, 100},                  // a burst: measured over the whole window
		{2 * time.Millisecond, 1000, 10000},          // faster already within the window
		{time.Second, 2000, 2000},                    // a whole window: replaces the rate
		{time.Second + time.Millisecond, 2000, 2000}, // requests close together keep it
		{11 * time.Second, 2010, 1},                  // quiet: shrinks
		{10 * time.Second, 2020, 1},                  // the clock stepped back: a new window, the estimate kept
		{10*time.Second + time.Millisecond, 3020, 10000},
		{11 * time.Second, 3020, 1000},
	}
	for i, s := range steps {
		if got := m.measure(at(s.at), s.issued, window); got != s.want {
			t.Errorf("step %d: rate %v, want %v", i, got, s.want)
		}
	}
}

func TestSpan_UsedHasACacheLineOfItsOwn(t *testing.T) {
	var s span
	if off := unsafe.Offsetof(s.used); off%64 != 0 || unsafe.Sizeof(s)-off < 64 {
		t.Errorf("span.used at offset %d of %d bytes: it must start a cache line and fill it", off, unsafe.Sizeof(s))
	}
}
