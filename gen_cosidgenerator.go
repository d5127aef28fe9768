package cosid

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// StrategyCosIDGenerator makes the ids of CosId 4.x's CosIdGenerator: 80 bits, 44 of
// Unix milliseconds, 20 of machine id and 16 of sequence
// (snowflake.CosIDGeneratorLayout), wider than an int64 and so text only, in one of
// its formats: radix62 (4.x's Radix62CosIdGenerator, 15 characters of 0-9A-Za-z),
// radix36 (Radix36CosIdGenerator, 17 of 0-9A-Z) or friendly
// (FriendlyCosIdGenerator, yyyyMMddHHmmssSSS-machine-sequence). Each field is
// zero-padded to its width, so that text order is issue order. Its machine id is
// fixed, or leased from its store's slots, as a Snowflake's is.
const StrategyCosIDGenerator Strategy = "cosid-generator"

// cosIDGeneratorDef is the strategy cosid-generator: a snowflake.Generator of wide
// ids (NextStamp) whose ids the generator's format writes.
var cosIDGeneratorDef = strategyDef{
	name:     StrategyCosIDGenerator,
	settings: []string{"store", "machine-id", "machine-ids", "slots", "lease-ttl", "tolerance", "owner-key", "state-file", "format", "zone"},
	plan:     checkCosIDGenerator,
	leases:   func(gc GeneratorConfig) bool { return gc.MachineID == nil },
}

// cosIDFormat is a text form of a cosid-generator's ids: the time, the machine and
// the sequence, each a fixed number of digits of radix, as 4.x's
// RadixCosIdStateParser and FriendlyIdStateParser write them.
type cosIDFormat struct {
	name   string
	radix  int    // 62, 36, or 10 for friendly
	digits string // the radix's digits, in the order of their values and of ASCII
	// width is each field's digits: 4.x's RadixIdConverter.maxCharSize of its bits
	// (friendly's time is yyyyMMddHHmmssSSS instead).
	width    [3]int
	friendly bool
}

const radixDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// cosIDFormats are the formats of the setting format; the first is the default.
var cosIDFormats = []*cosIDFormat{
	{name: "radix62", radix: 62, digits: radixDigits, width: [3]int{8, 4, 3}},
	{name: "radix36", radix: 36, digits: radixDigits[:36], width: [3]int{9, 4, 4}},
	{name: "friendly", radix: 10, digits: radixDigits[:10], width: [3]int{len(friendlyLayout) + 3, 7, 5}, friendly: true},
}

// friendlyLayout is the time of a friendly id to the second; its milliseconds
// follow as three digits: 4.x's yyyyMMddHHmmssSSS.
const friendlyLayout = "20060102150405"

// maxCosIDText is the length of the longest text of a cosid-generator, friendly's.
const maxCosIDText = 17 + 1 + 7 + 1 + 5

// cosIDGeneratorPlan is a checked cosid-generator.
type cosIDGeneratorPlan struct {
	format  *cosIDFormat
	zone    *time.Location // of the friendly format; UTC for the others
	machine machinePlan
	layout  snowflake.Layout
}

func (c *cosIDGeneratorPlan) ownFile() (setting, path string) { return c.machine.ownFile() }

func checkCosIDGenerator(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) (strategyPlan, error) {
	c := &cosIDGeneratorPlan{format: cosIDFormats[0], zone: time.UTC, layout: snowflake.CosIDGeneratorLayout()}
	if gc.Format != "" {
		c.format = nil
		var names []string
		for _, f := range cosIDFormats {
			if f.name == gc.Format {
				c.format = f
			}
			names = append(names, f.name)
		}
		if c.format == nil {
			return nil, p.errorf("format", "unknown format %q; want one of: %s", gc.Format, strings.Join(names, ", "))
		}
	}
	if gc.Zone != "" {
		if !c.format.friendly {
			return nil, p.errorf("zone", "the %s format writes no time of day; zone is for format: friendly", c.format.name)
		}
		loc, err := loadZone(gc.Zone)
		if err != nil {
			return nil, p.errorf("zone", "%v", err)
		}
		// A zone that changes its offset writes an hour of local times twice,
		// and two ids of one machine and sequence an hour apart would read alike.
		if _, end := time.Now().In(loc).ZoneBounds(); !end.IsZero() {
			return nil, p.errorf("zone", "%s changes its offset on %s: a friendly id would repeat the text of an earlier one in the hour it writes twice; want a zone without changes, such as UTC or Asia/Shanghai",
				gc.Zone, end.Format(time.DateOnly))
		}
		c.zone = loc
	}
	var err error
	if c.machine, err = checkMachine(p, gc, stores, c.layout); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *cosIDGeneratorPlan) build(ctx context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
	g, err := c.machine.build(ctx, rt, p, st, c.layout, snowflake.WithWideIDs())
	if err != nil {
		return nil, err
	}
	return &cosIDGen{g: g, machine: g.Machine(), plan: c}, nil
}

// take returns the generator's next n ids: a cosid-generator's id reserves nothing.
func (c *cosIDGeneratorPlan) take(ctx context.Context, g *generator, _ string, n int64) ([]string, error) {
	return takeEach(ctx, g, n)
}

// decode reads a text of the generator's format, and refuses every text the
// format does not write: another length, a character outside its radix, a field
// beyond its bits, a time that is not one in its zone.
func (c *cosIDGeneratorPlan) decode(p *plan, text string) (Decoded, error) {
	ms, machine, seq, err := c.format.parse(text, c.zone, c.layout)
	if err != nil {
		return Decoded{}, fmt.Errorf("cosid: generator %q: %s text %q: %w", p.name, c.format.name, text, err)
	}
	st := snowflake.State{Time: time.UnixMilli(ms).In(c.zone), Machine: int(machine), Sequence: int(seq)}
	return Decoded{TextOnly: true, Snowflake: &st}, nil
}

// append writes the id of Unix millisecond ms, machine and sequence seq to b. A
// friendly id's second is taken from last when it is that second's, and kept there
// otherwise; last may be nil.
func (f *cosIDFormat) append(b []byte, ms int64, machine, seq int, zone *time.Location, last *atomic.Pointer[friendlySecond]) []byte {
	if f.friendly {
		sec := ms / 1000
		var s *friendlySecond
		if last != nil {
			s = last.Load()
		}
		if s != nil && s.sec == sec {
			b = append(b, s.text[:]...)
		} else {
			n := len(b)
			b = time.UnixMilli(ms).In(zone).AppendFormat(b, friendlyLayout)
			if last != nil {
				s := &friendlySecond{sec: sec}
				copy(s.text[:], b[n:])
				last.Store(s)
			}
		}
		b = f.appendField(b, uint64(ms%1000), 3)
		b = f.appendField(append(b, '-'), uint64(machine), f.width[1])
		return f.appendField(append(b, '-'), uint64(seq), f.width[2])
	}
	b = f.appendField(b, uint64(ms), f.width[0])
	b = f.appendField(b, uint64(machine), f.width[1])
	return f.appendField(b, uint64(seq), f.width[2])
}

// friendlySecond is the text yyyyMMddHHmmss of the Unix second sec in a zone: the
// ids of one second share it, and formatting a time costs more than the rest of an
// id.
type friendlySecond struct {
	sec  int64
	text [len(friendlyLayout)]byte
}

// appendField writes v to b in width digits of f's radix, zero-padded. Each radix
// has a loop of its own, so that its divisions are by a constant, which the
// compiler turns into a multiplication.
func (f *cosIDFormat) appendField(b []byte, v uint64, width int) []byte {
	n := len(b)
	b = append(b, zeros[:width]...)
	i := len(b) - 1
	switch f.radix {
	case 62:
		for ; v > 0 && i >= n; i-- {
			q := v / 62
			b[i] = radixDigits[v-q*62]
			v = q
		}
	case 36:
		for ; v > 0 && i >= n; i-- {
			q := v / 36
			b[i] = radixDigits[v-q*36]
			v = q
		}
	default:
		for ; v > 0 && i >= n; i-- {
			q := v / 10
			b[i] = radixDigits[v-q*10]
			v = q
		}
	}
	return b
}

// zeros pads the fields.
const zeros = "00000000000000000"

// parse reads text back: the Unix millisecond, machine and sequence of the id.
func (f *cosIDFormat) parse(text string, zone *time.Location, l snowflake.Layout) (ms, machine, seq int64, err error) {
	want := f.width[0] + f.width[1] + f.width[2]
	if f.friendly {
		want += 2
	}
	if len(text) != want {
		return 0, 0, 0, fmt.Errorf("%d bytes, want %d: %s", len(text), want, f.shape())
	}
	at := 0
	field := func(width int, bits int, what string) (int64, error) {
		var v int64
		for i := at; i < at+width; i++ {
			d := strings.IndexByte(f.digits, text[i])
			if d < 0 {
				return 0, fmt.Errorf("%q at byte %d is not a digit of radix %d (%s): %s", text[i], i, f.radix, f.alphabet(), f.shape())
			}
			v = v*int64(f.radix) + int64(d)
		}
		if v >= 1<<bits {
			return 0, fmt.Errorf("its %s %s is %d, beyond the %d bits of a %s", what, text[at:at+width], v, bits, what)
		}
		at += width
		return v, nil
	}
	if f.friendly {
		ms, err = f.parseTime(text, zone, l)
		if err != nil {
			return 0, 0, 0, err
		}
		at = f.width[0]
		for _, sep := range []int{f.width[0], f.width[0] + 1 + f.width[1]} {
			if text[sep] != '-' {
				return 0, 0, 0, fmt.Errorf("%q at byte %d, want -: %s", text[sep], sep, f.shape())
			}
		}
		at++
		if machine, err = field(f.width[1], l.MachineBits, "machine"); err != nil {
			return 0, 0, 0, err
		}
		at++
		seq, err = field(f.width[2], l.SequenceBits, "sequence")
		return ms, machine, seq, err
	}
	if ms, err = field(f.width[0], l.TimestampBits, "time"); err != nil {
		return 0, 0, 0, err
	}
	if machine, err = field(f.width[1], l.MachineBits, "machine"); err != nil {
		return 0, 0, 0, err
	}
	seq, err = field(f.width[2], l.SequenceBits, "sequence")
	return ms, machine, seq, err
}

// parseTime reads the time yyyyMMddHHmmssSSS of a friendly text in zone.
func (f *cosIDFormat) parseTime(text string, zone *time.Location, l snowflake.Layout) (int64, error) {
	stamp := text[:f.width[0]]
	for i := range len(stamp) {
		if stamp[i] < '0' || stamp[i] > '9' {
			return 0, fmt.Errorf("%q at byte %d is not a digit of the time yyyyMMddHHmmssSSS: %s", stamp[i], i, f.shape())
		}
	}
	t, err := time.ParseInLocation(friendlyLayout, stamp[:len(friendlyLayout)], zone)
	milli, _ := strconv.Atoi(stamp[len(friendlyLayout):])
	if err != nil || t.Format(friendlyLayout) != stamp[:len(friendlyLayout)] {
		return 0, fmt.Errorf("%s is not a time yyyyMMddHHmmssSSS in %v", stamp, zone)
	}
	ms := t.UnixMilli() + int64(milli)
	if ms < 0 || ms >= 1<<l.TimestampBits {
		return 0, fmt.Errorf("the time %s lies outside the %d bits of milliseconds since 1970", stamp, l.TimestampBits)
	}
	return ms, nil
}

// shape describes the texts of f, for errors.
func (f *cosIDFormat) shape() string {
	if f.friendly {
		return fmt.Sprintf("want yyyyMMddHHmmssSSS-%s-%s", strings.Repeat("M", f.width[1]), strings.Repeat("S", f.width[2]))
	}
	return fmt.Sprintf("want %d digits of %s: %d of time, %d of machine, %d of sequence", f.width[0]+f.width[1]+f.width[2], f.alphabet(), f.width[0], f.width[1], f.width[2])
}

func (f *cosIDFormat) alphabet() string {
	switch f.radix {
	case 62:
		return "0-9A-Za-z"
	case 36:
		return "0-9A-Z"
	}
	return "0-9"
}

// cosIDGen is a built cosid-generator.
type cosIDGen struct {
	g       *snowflake.Generator
	machine int
	plan    *cosIDGeneratorPlan
	second  atomic.Pointer[friendlySecond] // the friendly format's last second
}

func (c *cosIDGen) next() (string, error) {
	ms, seq, err := c.g.NextStamp()
	if err != nil {
		return "", err
	}
	var buf [maxCosIDText]byte
	return string(c.plan.format.append(buf[:0], ms, c.machine, seq, c.plan.zone, &c.second)), nil
}

func (c *cosIDGen) ints() intGenerator         { return nil }
func (c *cosIDGen) stats() []segment.Stats     { return nil }
func (c *cosIDGen) lease() (store.Lease, bool) { return c.g.Lease() }
func (c *cosIDGen) lost(err error) bool        { return errors.Is(err, snowflake.ErrLeaseLost) }
func (c *cosIDGen) close() error               { return c.g.Close() }
