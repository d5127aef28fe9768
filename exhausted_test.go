package cosid_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// fullConfig has generators whose codec writes one digit: their ids end at 9.
const fullConfig = `cosid:
  stores:
    mem: { type: memory }
  generators:
    digit: { strategy: segment, store: mem, step: 4, codec: [ { radix: { radix: 10, width: 1 } } ] }
    day:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
      codec: [ { date-prefix: { delimiter: "-" } }, { radix: { radix: 10, width: 1 } } ]
`

// checkExhausted fails t unless err matches ErrExhausted, not ErrUnavailable, and
// names the width and the fix.
func checkExhausted(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, cosid.ErrExhausted) || errors.Is(err, cosid.ErrUnavailable) ||
		!strings.Contains(err.Error(), "the width 1") || !strings.Contains(err.Error(), "widen the codec") {
		t.Errorf("%s: %v; want an error matching ErrExhausted (not ErrUnavailable) naming the width and the fix", what, err)
	}
}

// TestTake_CodecFullReturnsTheIDsThatFit: Take across a codec's width returns the
// reserved ids that the codec writes, then ErrExhausted; nothing it reserved and
// could write is lost.
func TestTake_CodecFullReturnsTheIDsThatFit(t *testing.T) {
	rt := mustOpen(t, fullConfig)
	for _, name := range []string{"digit", "day"} {
		src := source(t, rt, name, "")
		got, err := src.Take(t.Context(), 7)
		if err != nil || len(got) != 7 {
			t.Fatalf("Take(%s, 7) = %q, %v", name, got, err)
		}
		got, err = src.Take(t.Context(), 5)
		if len(got) != 2 || !strings.HasSuffix(got[0], "8") || !strings.HasSuffix(got[1], "9") {
			t.Errorf("Take(%s, 5) at the width = %q, want the ids 8 and 9 that fit", name, got)
		}
		checkExhausted(t, "Take("+name+", 5)", err)
	}
}

// TestNext_CodecFullIsExhausted: Next past a codec's width fails with ErrExhausted,
// not as an unavailable store, after every id that fits.
func TestNext_CodecFullIsExhausted(t *testing.T) {
	rt := mustOpen(t, fullConfig)
	var got []string
	for {
		text, err := rt.Next(t.Context(), "digit")
		if err != nil {
			checkExhausted(t, "Next(digit) past 9", err)
			break
		}
		if got = append(got, text); len(got) > 9 {
			t.Fatalf("Next(digit) gave %q, past the codec's width", got)
		}
	}
	if want := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}; !slices.Equal(got, want) {
		t.Errorf("Next(digit) gave %q before the error, want %q", got, want)
	}
}
