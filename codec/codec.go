// Package codec turns ids into text and back: the value 42 of period 20261027 into
// "BIZ-20261027-00000042", and that text into the id again.
//
// A codec is built from a codec list, the items of a generator's "codec:" setting:
//
//	radix      {radix 2–62, width, pad-start}  the value in digits 0-9A-Za-z
//	to-string  {width, pad-start}              the value in decimal
//	prefix     {value}                         text before the value
//	suffix     {value}                         text after the value
//	date-prefix {delimiter, pattern}           the period first, then the delimiter
//	period     {delimiter}                     the period where the item stands, then the delimiter
//	friendly   {zone}                          a Snowflake id as time-machine-sequence
//	uuidv7     {}                              a Snowflake id as an RFC 9562 version-7 UUID
//
// The text is the items' parts in list order. A list holds at most one value item
// (radix, to-string, friendly or uuidv7, which stands alone: its text is a UUID); a
// list without one writes the value in plain decimal, as strconv.FormatInt does,
// between its prefixes and its suffixes. Prefixes and the
// period come before the value, suffixes after it; a date-prefix can only be the
// first item. Only a GroupedCodec has a period: a GroupedCodec whose list has no
// date-prefix or period item leaves the period out of the text and cannot decode it.
//
// Decode accepts exactly the texts that Encode produces: every other text is an
// error (a *SyntaxError) that gives the byte offset where it goes wrong and why.
// Encode refuses negative values and values wider than the item's width, rather than
// write a longer text.
package codec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cosid-go/cosid/segment"
)

// Codec turns int64 ids into text and back. It is safe for concurrent use.
type Codec interface {
	// Encode returns the text of v. It fails with an error wrapping ErrRange if v is
	// negative or wider than the codec's width.
	Encode(v int64) (string, error)
	// Decode returns the id whose text is s. It fails with a *SyntaxError if Encode
	// cannot produce s.
	Decode(s string) (int64, error)
}

// GroupedCodec turns the ids of a periodic sequence into text and back. It is safe
// for concurrent use.
type GroupedCodec interface {
	// Encode returns the text of id. It fails with an error wrapping
	// ErrInvalidPeriod if id.Period is not a key of the codec's period, and with one
	// wrapping ErrRange if id.Value is negative or wider than the codec's width.
	Encode(id segment.GroupedID) (string, error)
	// Decode returns the id whose text is s. It fails with a *SyntaxError if Encode
	// cannot produce s, and with an error wrapping ErrNoPeriod if the codec leaves the
	// period out of its text.
	Decode(s string) (segment.GroupedID, error)
}

// The sentinel errors; match them with errors.Is.
var (
	// ErrInvalidCodec means a codec list cannot be built; the error is an
	// *ItemError, or names the invalid segment.Period.
	ErrInvalidCodec = errors.New("invalid codec")
	// ErrRange means Encode was given a negative value, one wider than the codec's
	// width, or a period its pattern cannot show.
	ErrRange = errors.New("value out of range")
	// ErrInvalidPeriod means Encode was given a GroupedID whose Period is not a key of
	// the codec's period.
	ErrInvalidPeriod = errors.New("invalid period key")
	// ErrSyntax means Decode was given a text that Encode cannot produce; the error
	// is a *SyntaxError.
	ErrSyntax = errors.New("text not produced by the codec")
	// ErrNoPeriod means a GroupedCodec cannot decode its texts: its list has no
	// date-prefix or period item, so the period is not in them.
	ErrNoPeriod = errors.New("the period is not in the text")
)

// ItemError reports an item of a codec list that New or NewGrouped cannot build.
// Index and Field locate it, so that a configuration layer can name the YAML path,
// such as cosid.generators.bill.codec[1].radix.width.
type ItemError struct {
	Index  int    // the item's position in the list, from 0
	Item   string // the item's kind, as Item.Kind returns it
	Field  string // the field at fault as a codec list names it ("width", "pattern"), or "" for the whole item
	Reason string // what is wrong and what is allowed
}

// Error returns "codec: item 1 (radix) width: …".
func (e *ItemError) Error() string {
	where := fmt.Sprintf("codec: item %d", e.Index)
	if e.Item != "" {
		where += " (" + e.Item + ")"
	}
	if e.Field != "" {
		where += " " + e.Field
	}
	return where + ": " + e.Reason
}

// Unwrap returns ErrInvalidCodec.
func (e *ItemError) Unwrap() error { return ErrInvalidCodec }

// SyntaxError reports a text that Decode refused, and where and why Encode could not
// have produced it.
type SyntaxError struct {
	Text   string // the text given to Decode
	Offset int    // the byte offset in Text where it goes wrong; len(Text) if it ends too soon
	Reason string
}

// Error returns `codec: cannot decode "…": byte 4: …`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("codec: cannot decode %.100q: byte %d: %s", e.Text, e.Offset, e.Reason)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// syntaxErr returns a *SyntaxError whose Text the exported Decode fills in.
func syntaxErr(off int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// withText sets the text of a *SyntaxError made by syntaxErr.
func withText(err error, s string) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		se.Text = s
	}
	return err
}

// New returns the Codec of a codec list. A list with no value item writes the
// value in plain decimal. A date-prefix or period item is an error: a plain Codec
// has no period. The errors are *ItemError values.
func New(items ...Item) (Codec, error) {
	l, err := build(0, items)
	if err != nil {
		return nil, err
	}
	c := &plainCodec{layout: l, decimal: -1}
	if r, ok := l.value.(*radixValue); ok && r.radix == 10 && !r.padStart && len(l.before) == 0 && len(l.after) == 0 {
		c.decimal = r.max
	}
	return c, nil
}

// NewGrouped returns the GroupedCodec of a codec list for the ids of a periodic
// sequence with period p. The date-prefix or period item, if any, writes the period;
// without one the period is left out of the text, and Decode fails with ErrNoPeriod.
// The errors are *ItemError values, or name an invalid p.
func NewGrouped(p segment.Period, items ...Item) (GroupedCodec, error) {
	if p < segment.Year || p > segment.YearMonthDay {
		return nil, fmt.Errorf("codec: %w: %v, want segment.Year, segment.YearMonth or segment.YearMonthDay", ErrInvalidCodec, p)
	}
	l, err := build(p, items)
	if err != nil {
		return nil, err
	}
	key, _ := parsePattern(keyPattern(p), p)
	return &groupedCodec{layout: l, period: p, key: key}, nil
}

type plainCodec struct {
	layout
	// decimal is the largest value of a codec that writes the value alone in
	// unpadded decimal (the default), which Encode writes with strconv, two digits a
	// step; -1 for any other.
	decimal int64
}

func (c *plainCodec) Encode(v int64) (string, error) {
	if 0 <= v && v <= c.decimal {
		return strconv.FormatInt(v, 10), nil
	}
	digits, i, err := c.value.format(v)
	if err != nil {
		return "", err
	}
	return c.text(date{}, digits[i:]), nil
}

func (c *plainCodec) Decode(s string) (int64, error) {
	_, _, v, err := c.decode(s)
	if err != nil {
		return 0, withText(err, s)
	}
	return v, nil
}

type groupedCodec struct {
	layout
	period segment.Period
	key    *datePattern // reads and writes the period's key: yyyy, yyyyMM or yyyyMMdd
}

func (c *groupedCodec) Encode(id segment.GroupedID) (string, error) {
	d, end, err := c.key.parse(id.Period, 0)
	if err == nil && end != len(id.Period) {
		err = syntaxErr(end, "found %s after the key", describeAt(id.Period, end))
	}
	if err != nil {
		reason := err.Error()
		var se *SyntaxError
		if errors.As(err, &se) {
			reason = fmt.Sprintf("byte %d: %s", se.Offset, se.Reason)
		}
		return "", fmt.Errorf("codec: %w: %q is not a %v key like %q: %s",
			ErrInvalidPeriod, id.Period, c.period, exampleKey(c.period), reason)
	}
	if c.date != nil {
		if err := c.date.check(d); err != nil {
			return "", fmt.Errorf("codec: %w: period %s: %s", ErrRange, id.Period, err)
		}
	}
	digits, i, err := c.value.format(id.Value)
	if err != nil {
		return "", err
	}
	return c.text(d, digits[i:]), nil
}

func (c *groupedCodec) Decode(s string) (segment.GroupedID, error) {
	if c.date == nil {
		return segment.GroupedID{}, fmt.Errorf("codec: cannot decode %.100q: %w (the codec list has no date-prefix or period item)", s, ErrNoPeriod)
	}
	d, at, v, err := c.decode(s)
	if err != nil {
		return segment.GroupedID{}, withText(err, s)
	}
	var key string
	if c.date.src == c.key.src {
		key = s[at : at+c.key.n] // the text holds the key as it is
	} else {
		var b strings.Builder
		b.Grow(c.key.n)
		c.key.render(&b, d)
		key = b.String()
	}
	return segment.GroupedID{Period: key, Value: v}, nil
}
