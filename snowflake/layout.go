package snowflake

import (
	"fmt"
	"math"
	"time"

	"github.com/cosid-go/cosid/store"
)

// Layout is the bit layout of a Snowflake id: from the high bits down, the time in
// Units since Epoch, the machine (the slot of a lease, or a fixed number), and a
// sequence that counts the ids of one machine within one Unit. The sign bit stays
// clear, so TimestampBits+MachineBits+SequenceBits is at most 63.
type Layout struct {
	Epoch         time.Time     // time 0, on a whole millisecond
	Unit          time.Duration // a whole number of milliseconds: time.Millisecond, time.Second, …
	TimestampBits int           // at least 1
	MachineBits   int           // 2^MachineBits machines; 0 for one
	SequenceBits  int           // 2^SequenceBits ids per machine and Unit
}

// cosIDEpoch is CosId 4.x's epoch, 2019-12-24T16:00:00Z, so that ids of the default
// layout continue those of a 4.x MillisecondSnowflakeId.
const cosIDEpochMs = 1577203200000

// DefaultLayout returns the classic layout of CosId 4.x: 41 bits of milliseconds since
// 2019-12-24T16:00:00Z (69 years, to 2089), 10 bits of machine (1,024 instances), 12
// bits of sequence (4,096 ids per millisecond per instance).
func DefaultLayout() Layout {
	return Layout{Epoch: time.UnixMilli(cosIDEpochMs).UTC(), Unit: time.Millisecond, TimestampBits: 41, MachineBits: 10, SequenceBits: 12}
}

// JavaScriptLayout returns a layout whose ids stay below 2^53, so that JavaScript's
// numbers (Number.MAX_SAFE_INTEGER) hold them exactly: 31 bits of seconds since
// 2019-12-24T16:00:00Z (68 years, to 2088), 8 bits of machine (256 instances), 14 bits
// of sequence (16,384 ids per second per instance). Seconds buy the machine bits
// that leases want when instances come and go; an application that needs more ids
// per second and fewer instances sets its own bits. CosId 4.x's SafeJavaScriptSnowflakeId
// used 31/3/19 in seconds, for 8 instances.
func JavaScriptLayout() Layout {
	return Layout{Epoch: time.UnixMilli(cosIDEpochMs).UTC(), Unit: time.Second, TimestampBits: 31, MachineBits: 8, SequenceBits: 14}
}

// CosIDGeneratorLayout returns the layout of CosId 4.x's CosIdGenerator (its
// RadixCosIdGenerator's defaults): 44 bits of Unix milliseconds (to the year 2527),
// 20 bits of machine (1,048,576 instances), 16 bits of sequence (65,536 ids per
// millisecond per instance). Its ids are 80 bits, wider than an int64: a generator
// of it takes WithWideIDs, and its ids are text (package cosid's strategy
// cosid-generator).
func CosIDGeneratorLayout() Layout {
	return Layout{Epoch: time.UnixMilli(0).UTC(), Unit: time.Millisecond, TimestampBits: 44, MachineBits: 20, SequenceBits: 16}
}

// Validate reports whether l can make ids, with an error wrapping
// store.ErrInvalidArgument that names the field and its allowed values.
func (l Layout) Validate() error { return l.validate(false) }

// validate is Validate, of ids wider than an int64 when wide (WithWideIDs): their
// time and sequence fit 63 bits, and their machine 30 more beside them.
func (l Layout) validate(wide bool) error {
	bits, maxMachine := l.TimestampBits+l.MachineBits+l.SequenceBits, 62
	if wide {
		bits, maxMachine = l.TimestampBits+l.SequenceBits, 30
	}
	switch {
	case l.TimestampBits < 1 || l.TimestampBits > 63:
		return fmt.Errorf("snowflake: layout: %w: TimestampBits %d, want 1–63", store.ErrInvalidArgument, l.TimestampBits)
	case l.MachineBits < 0 || l.MachineBits > maxMachine:
		return fmt.Errorf("snowflake: layout: %w: MachineBits %d, want 0–%d", store.ErrInvalidArgument, l.MachineBits, maxMachine)
	case l.SequenceBits < 0 || l.SequenceBits > 62:
		return fmt.Errorf("snowflake: layout: %w: SequenceBits %d, want 0–62", store.ErrInvalidArgument, l.SequenceBits)
	case wide && bits > 63:
		return fmt.Errorf("snowflake: layout: %w: TimestampBits and SequenceBits %d+%d = %d bits, want at most 63",
			store.ErrInvalidArgument, l.TimestampBits, l.SequenceBits, bits)
	case bits > 63:
		return fmt.Errorf("snowflake: layout: %w: %d+%d+%d = %d bits, want at most 63 (or ids wider than an int64: WithWideIDs)",
			store.ErrInvalidArgument, l.TimestampBits, l.MachineBits, l.SequenceBits, bits)
	case l.Unit < time.Millisecond || l.Unit%time.Millisecond != 0:
		return fmt.Errorf("snowflake: layout: %w: Unit %v, want a whole number of milliseconds (1ms, 10ms, 1s, …)", store.ErrInvalidArgument, l.Unit)
	case l.Epoch.IsZero() || l.Epoch.Nanosecond()%int(time.Millisecond) != 0:
		return fmt.Errorf("snowflake: layout: %w: Epoch %v, want a time on a whole millisecond", store.ErrInvalidArgument, l.Epoch)
	}
	if _, ok := l.msOf(int64(1)<<l.TimestampBits - 1); !ok {
		return fmt.Errorf("snowflake: layout: %w: %d bits of %v from %v run past the year 292277026596",
			store.ErrInvalidArgument, l.TimestampBits, l.Unit, l.Epoch)
	}
	return nil
}

// State is a Snowflake id taken apart, the friendly form of an id.
type State struct {
	Time     time.Time // the start of the id's Unit, in UTC
	Machine  int
	Sequence int
}

// Parse takes id apart. An id the layout cannot make (negative, or with bits above
// the layout's) gives a State that Compose refuses. Parse does not validate l.
func (l Layout) Parse(id int64) State {
	s := State{
		Machine:  int(id >> l.SequenceBits & (1<<l.MachineBits - 1)),
		Sequence: int(id & (1<<l.SequenceBits - 1)),
	}
	if ms, ok := l.msOf(id >> (l.MachineBits + l.SequenceBits)); ok {
		s.Time = time.UnixMilli(ms).UTC()
	}
	return s
}

// Compose makes the id of s, the inverse of Parse: Compose(Parse(id)) is id for
// every id the layout can make. It fails, with an error wrapping
// store.ErrInvalidArgument that says why, when l is invalid, when the machine or
// the sequence do not fit their bits, or when the time is before the epoch, past the
// timestamp's bits or not on a whole Unit.
func (l Layout) Compose(s State) (int64, error) {
	if err := l.Validate(); err != nil {
		return 0, err
	}
	if maxM := int64(1)<<l.MachineBits - 1; s.Machine < 0 || int64(s.Machine) > maxM {
		return 0, fmt.Errorf("snowflake: compose: %w: machine %d, want 0–%d", store.ErrInvalidArgument, s.Machine, maxM)
	}
	if maxS := int64(1)<<l.SequenceBits - 1; s.Sequence < 0 || int64(s.Sequence) > maxS {
		return 0, fmt.Errorf("snowflake: compose: %w: sequence %d, want 0–%d", store.ErrInvalidArgument, s.Sequence, maxS)
	}
	unit, epoch := l.Unit.Milliseconds(), l.Epoch.UnixMilli()
	ms := s.Time.UnixMilli()
	switch {
	case s.Time.Before(l.Epoch):
		return 0, fmt.Errorf("snowflake: compose: %w: time %v is before the epoch %v", store.ErrInvalidArgument, s.Time, l.Epoch)
	case s.Time.Nanosecond()%int(time.Millisecond) != 0 || (ms-epoch)%unit != 0:
		return 0, fmt.Errorf("snowflake: compose: %w: time %v is not a whole Unit (%v) after the epoch", store.ErrInvalidArgument, s.Time, l.Unit)
	}
	ts := (ms - epoch) / unit
	if maxT := int64(1)<<l.TimestampBits - 1; ts > maxT {
		last, _ := l.msOf(maxT)
		return 0, fmt.Errorf("snowflake: compose: %w: time %v is past the layout's last time %v", store.ErrInvalidArgument, s.Time, time.UnixMilli(last).UTC())
	}
	return ts<<(l.MachineBits+l.SequenceBits) | int64(s.Machine)<<l.SequenceBits | int64(s.Sequence), nil
}

// msOf returns the epoch milliseconds at which timestamp ts begins, and false when
// they do not fit an int64.
func (l Layout) msOf(ts int64) (int64, bool) {
	unit, epoch := l.Unit.Milliseconds(), l.Epoch.UnixMilli()
	if unit <= 0 || ts > 0 && ts > (math.MaxInt64-max(epoch, 0))/unit || ts < 0 && ts < (math.MinInt64-min(epoch, 0))/unit {
		return 0, false
	}
	return epoch + ts*unit, true
}
