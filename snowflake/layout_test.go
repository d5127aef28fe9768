package snowflake_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

func TestDefaultLayout_Is41_10_12MillisecondsFromCosIdEpoch(t *testing.T) {
	l := snowflake.DefaultLayout()
	want := snowflake.Layout{Epoch: time.Date(2019, 12, 24, 16, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimestampBits: 41, MachineBits: 10, SequenceBits: 12}
	if !l.Epoch.Equal(want.Epoch) || l.Unit != want.Unit || l.TimestampBits != 41 || l.MachineBits != 10 || l.SequenceBits != 12 {
		t.Errorf("DefaultLayout() = %+v, want %+v", l, want)
	}
	if err := l.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestJavaScriptLayout_IDsStayBelow2Pow53(t *testing.T) {
	l := snowflake.JavaScriptLayout()
	if err := l.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if bits := l.TimestampBits + l.MachineBits + l.SequenceBits; bits != 53 {
		t.Errorf("the layout has %d bits, want 53", bits)
	}
	last := l.Epoch.Add(time.Duration(1<<l.TimestampBits-1) * l.Unit)
	id, err := l.Compose(snowflake.State{Time: last, Machine: 1<<l.MachineBits - 1, Sequence: 1<<l.SequenceBits - 1})
	if err != nil {
		t.Fatalf("Compose of the largest state: %v", err)
	}
	const maxSafe = 1<<53 - 1 // Number.MAX_SAFE_INTEGER
	if id != maxSafe {
		t.Errorf("the largest id is %d, want Number.MAX_SAFE_INTEGER %d", id, int64(maxSafe))
	}
	if year := last.Year(); year < 2087 {
		t.Errorf("the layout runs out in %d", year)
	}
}

func TestLayout_Validate_NamesTheField(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*snowflake.Layout)
		mention string
	}{
		{"NoTimestamp", func(l *snowflake.Layout) { l.TimestampBits = 0 }, "TimestampBits 0, want 1–63"},
		{"NegativeMachine", func(l *snowflake.Layout) { l.MachineBits = -1 }, "MachineBits -1"},
		{"NegativeSequence", func(l *snowflake.Layout) { l.SequenceBits = -3 }, "SequenceBits -3"},
		{"SixtyFourBits", func(l *snowflake.Layout) { l.TimestampBits = 42 }, "42+10+12 = 64 bits, want at most 63"},
		{"NoUnit", func(l *snowflake.Layout) { l.Unit = 0 }, "Unit 0s"},
		{"SubMillisecondUnit", func(l *snowflake.Layout) { l.Unit = 1500 * time.Microsecond }, "whole number of milliseconds"},
		{"NoEpoch", func(l *snowflake.Layout) { l.Epoch = time.Time{} }, "Epoch"},
		{"EpochBetweenMilliseconds", func(l *snowflake.Layout) { l.Epoch = l.Epoch.Add(time.Microsecond) }, "Epoch"},
		{"PastTheEndOfTime", func(l *snowflake.Layout) {
			l.TimestampBits, l.MachineBits, l.SequenceBits, l.Unit = 60, 0, 0, time.Hour
		}, "run past"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := snowflake.DefaultLayout()
			tc.mod(&l)
			err := l.Validate()
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("Validate = %v, want ErrInvalidArgument saying %q", err, tc.mention)
			}
		})
	}
	for _, l := range []snowflake.Layout{
		{Epoch: time.UnixMilli(0), Unit: 10 * time.Millisecond, TimestampBits: 39, MachineBits: 16, SequenceBits: 8}, // sonyflake's
		{Epoch: time.UnixMilli(0), Unit: time.Millisecond, TimestampBits: 63},
		{Epoch: time.UnixMilli(0), Unit: time.Second, TimestampBits: 1, MachineBits: 62},
	} {
		if err := l.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", l, err)
		}
	}
}

func TestLayout_Parse_TakesTheIDApart(t *testing.T) {
	l := snowflake.DefaultLayout()
	at := time.Date(2026, 10, 27, 9, 30, 15, 123e6, time.UTC)
	ts := at.Sub(l.Epoch).Milliseconds()
	id := ts<<22 | 7<<12 | 42
	s := l.Parse(id)
	if !s.Time.Equal(at) || s.Machine != 7 || s.Sequence != 42 || s.Time.Location() != time.UTC {
		t.Errorf("Parse(%d) = %+v, want %v, machine 7, sequence 42, in UTC", id, s, at)
	}
	back, err := l.Compose(s)
	if err != nil || back != id {
		t.Errorf("Compose(%+v) = %d, %v; want %d", s, back, err, id)
	}
}

func TestLayout_Compose_RefusesWhatParseCannotGive(t *testing.T) {
	l := snowflake.DefaultLayout()
	ok := snowflake.State{Time: l.Epoch.Add(time.Hour), Machine: 3, Sequence: 9}
	tests := []struct {
		name    string
		layout  func(*snowflake.Layout)
		state   func(*snowflake.State)
		mention string
	}{
		{"MachineNegative", nil, func(s *snowflake.State) { s.Machine = -1 }, "machine -1, want 0–1023"},
		{"MachineTooBig", nil, func(s *snowflake.State) { s.Machine = 1024 }, "machine 1024, want 0–1023"},
		{"SequenceNegative", nil, func(s *snowflake.State) { s.Sequence = -1 }, "sequence -1, want 0–4095"},
		{"SequenceTooBig", nil, func(s *snowflake.State) { s.Sequence = 4096 }, "sequence 4096"},
		{"BeforeEpoch", nil, func(s *snowflake.State) { s.Time = l.Epoch.Add(-time.Millisecond) }, "before the epoch"},
		{"BetweenMilliseconds", nil, func(s *snowflake.State) { s.Time = s.Time.Add(time.Microsecond) }, "not a whole Unit"},
		{"BetweenSeconds", func(l *snowflake.Layout) { l.Unit = time.Second }, func(s *snowflake.State) { s.Time = s.Time.Add(5 * time.Millisecond) }, "not a whole Unit (1s)"},
		{"PastTheLastTime", nil, func(s *snowflake.State) { s.Time = l.Epoch.Add(time.Duration(1<<41) * time.Millisecond) }, "past the layout's last time"},
		{"ZeroTime", nil, func(s *snowflake.State) { s.Time = time.Time{} }, "before the epoch"},
		{"InvalidLayout", func(l *snowflake.Layout) { l.TimestampBits = 0 }, nil, "TimestampBits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, s := l, ok
			if tc.layout != nil {
				tc.layout(&l)
			}
			if tc.state != nil {
				tc.state(&s)
			}
			id, err := l.Compose(s)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("Compose = %d, %v; want ErrInvalidArgument saying %q", id, err, tc.mention)
			}
		})
	}
}

func TestLayout_IDsOutsideTheLayoutDoNotRoundTrip(t *testing.T) {
	l := snowflake.DefaultLayout()
	for _, id := range []int64{-1, math.MinInt64, -1 << 22} {
		if back, err := l.Compose(l.Parse(id)); err == nil {
			t.Errorf("Compose(Parse(%d)) = %d, want an error for a negative id", id, back)
		}
	}
	if mustCompose(t, l, l.Parse(math.MaxInt64)) != math.MaxInt64 {
		t.Errorf("the largest id of the 63-bit default layout does not round-trip")
	}
	small := snowflake.Layout{Epoch: l.Epoch, Unit: time.Second, TimestampBits: 20, MachineBits: 2, SequenceBits: 3}
	for _, id := range []int64{1 << 25, math.MaxInt64, -8} {
		if back, err := small.Compose(small.Parse(id)); err == nil {
			t.Errorf("Compose(Parse(%d)) with 25 bits = %d, want an error", id, back)
		}
	}
	if id := int64(1<<25 - 1); mustCompose(t, small, small.Parse(id)) != id {
		t.Errorf("the largest id of a 25-bit layout does not round-trip")
	}
}

func mustCompose(t *testing.T, l snowflake.Layout, s snowflake.State) int64 {
	t.Helper()
	id, err := l.Compose(s)
	if err != nil {
		t.Fatalf("Compose(%+v): %v", s, err)
	}
	return id
}

// FuzzLayout_ParseCompose checks that Compose is the inverse of Parse on every
// layout: an id round-trips exactly, or Compose refuses it with ErrInvalidArgument,
// and it refuses only ids the layout cannot make.
func FuzzLayout_ParseCompose(f *testing.F) {
	f.Add(int64(0), 41, 10, 12, int64(1), int64(cosIDEpochMs))
	f.Add(int64(1<<53-1), 31, 8, 14, int64(1000), int64(cosIDEpochMs))
	f.Add(int64(-1), 41, 10, 12, int64(1), int64(0))
	f.Add(int64(math.MaxInt64), 63, 0, 0, int64(1), int64(-5))
	f.Add(int64(12345678901234), 39, 16, 8, int64(10), int64(1409529600000))
	f.Fuzz(func(t *testing.T, id int64, tsBits, machineBits, seqBits int, unitMs, epochMs int64) {
		l := snowflake.Layout{Epoch: time.UnixMilli(epochMs), Unit: time.Duration(unitMs) * time.Millisecond,
			TimestampBits: tsBits, MachineBits: machineBits, SequenceBits: seqBits}
		if unitMs <= 0 || unitMs > math.MaxInt64/int64(time.Millisecond) || l.Validate() != nil {
			return
		}
		s := l.Parse(id)
		back, err := l.Compose(s)
		bits := tsBits + machineBits + seqBits
		inLayout := id >= 0 && (bits == 63 || id < int64(1)<<bits)
		switch {
		case err == nil && back != id:
			t.Fatalf("Compose(Parse(%d)) = %d with %+v", id, back, l)
		case err != nil && !errors.Is(err, store.ErrInvalidArgument):
			t.Fatalf("Compose(Parse(%d)): %v, want ErrInvalidArgument", id, err)
		case err != nil && inLayout && !strings.Contains(err.Error(), "past the layout's last time"):
			t.Fatalf("Compose refused %d, an id of %+v: %v", id, l, err)
		case err == nil && !inLayout:
			t.Fatalf("Compose(Parse(%d)) succeeded for an id outside %+v", id, l)
		}
	})
}

// FuzzLayout_ComposeParse checks that every State that Compose accepts comes back
// whole from Parse.
func FuzzLayout_ComposeParse(f *testing.F) {
	f.Add(int64(cosIDEpochMs+1000), 5, 7)
	f.Add(int64(cosIDEpochMs-1), 0, 0)
	f.Add(int64(math.MaxInt64), 1023, 4095)
	f.Add(int64(math.MinInt64), -1, 4096)
	f.Fuzz(func(t *testing.T, ms int64, machine, seq int) {
		for _, l := range []snowflake.Layout{snowflake.DefaultLayout(), snowflake.JavaScriptLayout()} {
			s := snowflake.State{Time: time.UnixMilli(ms).UTC(), Machine: machine, Sequence: seq}
			id, err := l.Compose(s)
			if err != nil {
				if !errors.Is(err, store.ErrInvalidArgument) {
					t.Fatalf("Compose(%+v): %v, want ErrInvalidArgument", s, err)
				}
				continue
			}
			if id < 0 {
				t.Fatalf("Compose(%+v) = %d, a negative id", s, id)
			}
			if got := l.Parse(id); !got.Time.Equal(s.Time) || got.Machine != machine || got.Sequence != seq {
				t.Fatalf("Parse(Compose(%+v)) = %+v", s, got)
			}
		}
	})
}

const cosIDEpochMs = 1577203200000
