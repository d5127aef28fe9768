package cosid

import (
	"encoding/json"
	"strconv"

	"github.com/cosid-go/cosid/snowflake"
)

// Decoded is what a text of a generator stands for.
//
// Its JSON form is {"period":"20261027","value":42} for a periodic segment,
// {"value":42} for a segment, for a snowflake
// {"value":"918254194220072962","time":"2026-10-27T09:30:15.123+08:00","machine":7,"sequence":42},
// and for a cosid-generator, whose ids have no int64 value,
// {"time":"2026-10-27T09:30:15.123Z","machine":7,"sequence":42}. A value above 2^53
// is a JSON string, since JavaScript numbers above it lose digits; time is RFC 3339
// with milliseconds, in the zone of the codec's friendly item or the friendly
// format (UTC without one).
type Decoded struct {
	Period string // the period of a periodic segment's id
	Value  int64  // 0 when TextOnly
	// Snowflake is the time, machine and sequence of a snowflake's or a
	// cosid-generator's id; nil for the others.
	Snowflake *snowflake.State
	// TextOnly says the id has no int64 Value: a cosid-generator's 80 bits are
	// text only.
	TextOnly bool
}

// maxExact is the largest integer that a JSON reader using float64 keeps exactly.
const maxExact = 1 << 53

// MarshalJSON writes d in the form its doc gives.
func (d Decoded) MarshalJSON() ([]byte, error) {
	type snow struct {
		Time     string `json:"time"`
		Machine  int    `json:"machine"`
		Sequence int    `json:"sequence"`
	}
	var out struct {
		Period string          `json:"period,omitempty"`
		Value  json.RawMessage `json:"value,omitempty"`
		*snow
	}
	out.Period = d.Period
	if !d.TextOnly {
		out.Value = json.RawMessage(strconv.FormatInt(d.Value, 10))
		if d.Value > maxExact || d.Value < -maxExact {
			out.Value = json.RawMessage(strconv.Quote(string(out.Value)))
		}
	}
	if s := d.Snowflake; s != nil {
		out.snow = &snow{Time: s.Time.Format("2006-01-02T15:04:05.000Z07:00"), Machine: s.Machine, Sequence: s.Sequence}
	}
	return json.Marshal(out)
}

// Decode returns what text, a text of the generator name, stands for, without
// opening anything. A text that the generator's codec cannot make is an error that
// says why.
func (c Config) Decode(name, text string) (Decoded, error) { return decodeOf(c, name, text) }

// Decode returns what text, a text of the generator name, stands for.
func (rt *Runtime) Decode(name, text string) (Decoded, error) { return decodeOf(rt, name, text) }

func decodeOf(ps planner, name, text string) (Decoded, error) {
	p, err := ps.plan(name)
	if err != nil {
		return Decoded{}, err
	}
	return p.decode(text)
}

func (p *plan) decode(text string) (Decoded, error) { return p.impl.decode(p, text) }
