package cosid_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
)

// capConfig has generators with codecs of every kind of capacity.
const capConfig = `cosid:
  stores:
    mem: { type: memory }
  generators:
    six: { strategy: segment, store: mem, max-batch: 1000, codec: [ { radix: { radix: 10, width: 6, pad-start: true } } ] }
    short: { strategy: segment, store: mem, initial-offset: 100, max-batch: 100, codec: [ { prefix: { value: "S-" } }, { radix: { radix: 62, width: 2 } } ] }
    wide: { strategy: segment, store: mem }
    day:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
      max-batch: 100
      codec: [ { date-prefix: { delimiter: "-" } }, { radix: { radix: 10, width: 3 } } ]
    event: { strategy: snowflake, machine-id: 1 }
`

// TestCapacity_OfTheCodecsWidth: a generator's capacity is the values from its
// initial-offset to the largest its codec writes, per period for a periodic one;
// a codec without a width ends at math.MaxInt64; a Snowflake has none.
func TestCapacity_OfTheCodecsWidth(t *testing.T) {
	rt := mustOpen(t, capConfig)
	tests := []struct {
		name string
		want cosid.Capacity
		ids  int64
		ok   bool
	}{
		{"six", cosid.Capacity{First: 1, Max: 999_999}, 999_999, true},
		{"short", cosid.Capacity{First: 100, Max: 62*62 - 1}, 62*62 - 100, true},
		{"wide", cosid.Capacity{First: 1, Max: math.MaxInt64}, math.MaxInt64, true},
		{"day", cosid.Capacity{First: 1, Max: 999, Periodic: true}, 999, true},
		{"event", cosid.Capacity{}, 0, false},
		{"none", cosid.Capacity{}, 0, false},
	}
	for _, tc := range tests {
		got, ok := rt.Capacity(tc.name)
		if got != tc.want || ok != tc.ok || ok && got.IDs() != tc.ids {
			t.Errorf("Capacity(%q) = %+v (%d ids), %v; want %+v (%d ids), %v", tc.name, got, got.IDs(), ok, tc.want, tc.ids, tc.ok)
		}
		if ok && got.Bounded() != (tc.name != "wide") {
			t.Errorf("Capacity(%q).Bounded() = %v", tc.name, got.Bounded())
		}
	}
	six, _ := rt.Capacity("six")
	for next, left := range map[int64]int64{0: 999_999, 1: 999_999, 999_999: 1, 1_000_000: 0, 5_000_000: 0} {
		if got := six.Left(next); got != left {
			t.Errorf("Left(%d) of width 6 = %d, want %d", next, got, left)
		}
	}
}

// TestNextRange_CapsAtCodecWidth: a range never holds a value its codec cannot
// write: at the width it ends at the largest value, and past it NextRange is
// ErrExhausted, seen by Exhausted.
func TestNextRange_CapsAtCodecWidth(t *testing.T) {
	rt := mustOpen(t, fullConfig)
	src := source(t, rt, "digit", "")
	ctx := t.Context()
	if r, err := src.NextRange(ctx, 6); err != nil || r.Start != 1 || r.End != 7 {
		t.Fatalf("NextRange(6) = %v, %v; want [1, 7)", r, err)
	}
	if r, err := src.NextRange(ctx, 6); err != nil || r.Start != 7 || r.End != 10 {
		t.Errorf("NextRange(6) at the width = %v, %v; want [7, 10), capped at 9", r, err)
	}
	if e := rt.Exhausted("digit"); e.Full {
		t.Errorf("Exhausted before a call failed = %+v", e)
	}
	r, err := src.NextRange(ctx, 1)
	checkExhausted(t, "NextRange(1) past the width", err)
	if r.End != 0 {
		t.Errorf("NextRange past the width gave %v", r)
	}
	if e := rt.Exhausted("digit"); !e.Full || len(e.Keys) != 0 {
		t.Errorf("Exhausted(digit) = %+v, want full, no keys", e)
	}
}

// TestExhausted_NamesFullKeysAndEndsWithThePeriod: a keyed template is full while
// one of its keys is, which Exhausted names; a periodic generator is full in the
// period it filled, not in the next.
func TestExhausted_NamesFullKeysAndEndsWithThePeriod(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cfg, err := cosid.ParseConfig([]byte(fullConfig + `    inv: { strategy: segment, store: mem, keyed: true, codec: [ { radix: { radix: 10, width: 1 } } ] }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithRetryClock(clock), cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	fill := func(name, key string) {
		t.Helper()
		src := source(t, rt, name, key)
		for range 12 {
			if _, err := src.Next(t.Context()); errors.Is(err, cosid.ErrExhausted) {
				return
			}
		}
		t.Fatalf("%s %q did not fill", name, key)
	}
	fill("inv", "victim")
	fill("inv", "other")
	if e := rt.Exhausted("inv"); !e.Full || !slices.Equal(e.Keys, []string{"other", "victim"}) {
		t.Errorf("Exhausted(inv) = %+v, want full with keys other and victim", e)
	}
	if _, err := source(t, rt, "inv", "fresh").Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	if e := rt.Exhausted("inv"); len(e.Keys) != 2 {
		t.Errorf("a key that serves is named full: %+v", e)
	}
	if _, err := source(t, rt, "day", "").Take(t.Context(), 9); err != nil {
		t.Fatal(err)
	}
	if _, err := source(t, rt, "day", "").Take(t.Context(), 1); !errors.Is(err, cosid.ErrExhausted) {
		t.Fatalf("Take past the width: %v", err)
	}
	if e := rt.Exhausted("day"); !e.Full {
		t.Errorf("Exhausted(day) = %+v in the period it filled, want full", e)
	}
	mu.Lock()
	now = now.Add(24 * time.Hour)
	mu.Unlock()
	if e := rt.Exhausted("day"); e.Full {
		t.Errorf("Exhausted(day) = %+v the next day, want not full: a period starts again", e)
	}
	if e := rt.Exhausted("inv"); !e.Full {
		t.Errorf("Exhausted(inv) = %+v the next day, want full: a segment key does not start again", e)
	}
}

// captured is a slog handler that keeps the records it handles.
type captured struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (c *captured) Enabled(context.Context, slog.Level) bool { return true }
func (c *captured) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, r)
	return nil
}
func (c *captured) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *captured) WithGroup(string) slog.Handler      { return c }

// warnings returns the WARN records of c as text: message and attributes.
func (c *captured) warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.recs {
		if r.Level != slog.LevelWarn {
			continue
		}
		var b bytes.Buffer
		b.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool {
			b.WriteString(" " + a.String())
			return true
		})
		out = append(out, b.String())
	}
	return out
}

// TestOpen_WarnsOfConfigurationOverCapacity: Open logs at WARN, with the numbers,
// each generator whose max-batch, or whose period at a step per lookahead, takes
// more ids than its codec writes; a generator that fits is not named, nor one
// whose configuration states neither step nor max-batch (defaults say nothing of
// the use expected).
func TestOpen_WarnsOfConfigurationOverCapacity(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(`cosid:
  stores:
    mem: { type: memory }
  generators:
    burst: { strategy: segment, store: mem, step: 10, max-batch: 5000, codec: [ { radix: { radix: 10, width: 3 } } ] }
    fits: { strategy: segment, store: mem, step: 10, max-batch: 500, codec: [ { radix: { radix: 10, width: 3 } } ] }
    wide: { strategy: segment, store: mem, max-batch: 5000 }
    defaults:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
      codec: [ { date-prefix: { delimiter: "-" } }, { radix: { radix: 10, width: 2 } } ]
    bill:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
      step: 100
      max-batch: 1000
      codec: [ { date-prefix: { delimiter: "-" } }, { radix: { radix: 10, width: 6 } } ]
    month:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH
      zone: UTC
      step: 1
      lookahead: 10s
      max-batch: 10
      codec: [ { period: { delimiter: "-" } }, { radix: { radix: 10, width: 6 } } ]
`))
	if err != nil {
		t.Fatal(err)
	}
	h := &captured{}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(slog.New(h)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	got := h.warnings()
	want := [][]string{
		{`"bill"`, "a period of 24h0m0s", "8640000 ids", "(999999)", "11.57 ids/s", "period-use=8640000"},
		{`"burst"`, "max-batch 5000", "(999, up to 999)", "generator=burst", "capacity=999", "max-batch=5000", "path=cosid.generators.burst"},
	}
	if len(got) != len(want) {
		t.Fatalf("Open logged %d warnings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, parts := range want {
		for _, p := range parts {
			if !strings.Contains(got[i], p) {
				t.Errorf("warning %d lacks %q: %s", i, p, got[i])
			}
		}
	}
}

// TestExhausted_ConcurrentKeysBounded: keys filled from many goroutines while
// Exhausted is read are all counted, and the names kept are bounded: 16 named, the
// rest counted in More.
func TestExhausted_ConcurrentKeysBounded(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(`cosid:
  stores:
    mem: { type: memory }
  generators:
    inv: { strategy: segment, store: mem, keyed: true, step: 1, max-batch: 1, codec: [ { radix: { radix: 10, width: 1 } } ] }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	const keys = 40
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			src, err := rt.Source("inv", fmt.Sprintf("k%02d", i))
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := src.Take(t.Context(), 9); err != nil {
				t.Error(err)
			}
			if _, err := src.Take(t.Context(), 1); !errors.Is(err, cosid.ErrExhausted) {
				t.Errorf("Take past the width: %v", err)
			}
			rt.Exhausted("inv")
		})
	}
	wg.Wait()
	if e := rt.Exhausted("inv"); !e.Full || len(e.Keys) != 16 || e.More != keys-16 {
		t.Errorf("Exhausted after %d keys filled = %d keys named, %d more; want 16 and %d", keys, len(e.Keys), e.More, keys-16)
	}
}
