package codec

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/cosid-go/cosid/segment"
)

// Item is one entry of a codec list, made by Radix, ToString, Prefix, Suffix,
// DatePrefix, Period, Friendly or UUIDv7; only this package makes items. Items are checked when New or
// NewGrouped builds the list, so that an error can name the item's index.
type Item interface {
	// Kind returns the item's name in a codec list: "radix", "to-string", "prefix",
	// "suffix", "date-prefix", "period", "friendly" or "uuidv7".
	Kind() string
	// add checks the item as the index-th of its list and adds it to b.
	add(b *builder, index int) error
}

// Radix returns the item that writes the value in base radix (2–62) with the digits
// 0-9A-Za-z, in that order: radix 16 writes 0-9A-F. A width of 1 or more bounds
// the value to that many digits; 0 allows as many as math.MaxInt64 has in the radix
// (11 for radix 62, 19 for radix 10). padStart pads the value with zeros to the
// width, or with width 0 to that many digits.
func Radix(radix, width int, padStart bool) Item {
	return &radixItem{kind: "radix", radix: radix, width: width, padStart: padStart}
}

// ToString returns the item that writes the value in decimal: Radix(10, width,
// padStart).
func ToString(width int, padStart bool) Item {
	return &radixItem{kind: "to-string", radix: 10, width: width, padStart: padStart}
}

// Prefix returns the item that writes value, a non-empty UTF-8 text, before the
// value.
func Prefix(value string) Item { return &literalItem{kind: "prefix", value: value} }

// Suffix returns the item that writes value, a non-empty UTF-8 text, after the value.
func Suffix(value string) Item { return &literalItem{kind: "suffix", value: value} }

// DatePrefix returns the item that starts the text with the period and then
// delimiter. pattern writes the period with the letters yyyy or yy (year; yy holds
// 2000–2099), MM (month) and dd (day), one of each field of the period, and any other
// text that has no ASCII letter: "yyyy-MM-dd" writes 2026-10-27. An empty pattern
// writes the period's key: 2026, 202610 or 20261027. It can only be the first item.
func DatePrefix(delimiter, pattern string) Item {
	return &periodItem{kind: "date-prefix", delimiter: delimiter, pattern: pattern}
}

// Period returns the item that writes the period's key and then delimiter where the
// item stands in the list, such as after a business prefix: BIZ-20261027-….
func Period(delimiter string) Item { return &periodItem{kind: "period", delimiter: delimiter} }

// builder assembles a layout from the items of a list, in order.
type builder struct {
	period   segment.Period // 0 for a plain Codec
	l        layout
	valueAt  int // the index of the value item, or -1
	periodAt int // the index of the date-prefix or period item, or -1
	suffixAt int // the index of the first suffix, or -1
	aloneAt  int // the index of an item that stands alone in its list (uuidv7), or -1
}

func build(p segment.Period, items []Item) (layout, error) {
	b := builder{period: p, valueAt: -1, periodAt: -1, suffixAt: -1, aloneAt: -1}
	for i, it := range items {
		if it == nil {
			return layout{}, &ItemError{Index: i, Reason: "is nil; want an item made by Radix, ToString, Prefix, Suffix, DatePrefix, Period, Friendly or UUIDv7"}
		}
		if b.aloneAt >= 0 {
			return layout{}, itemErr(i, it, "", "comes after the %s at index %d, which stands alone in its list", items[b.aloneAt].Kind(), b.aloneAt)
		}
		if err := it.add(&b, i); err != nil {
			return layout{}, err
		}
	}
	if b.l.value == nil {
		b.l.value = newRadixValue(10, 0, false, "to-string")
	}
	for _, p := range b.l.before {
		b.l.fixedLen += p.len()
	}
	for _, p := range b.l.after {
		b.l.afterText += p.lit
	}
	b.l.fixedLen += len(b.l.afterText)
	return b.l, nil
}

func itemErr(index int, it Item, field, format string, args ...any) *ItemError {
	return &ItemError{Index: index, Item: it.Kind(), Field: field, Reason: fmt.Sprintf(format, args...)}
}

// setValue makes v, of the item at index, the list's value item.
func (b *builder) setValue(it Item, index int, v valueFormat) error {
	switch {
	case b.valueAt >= 0:
		return itemErr(index, it, "", "is a second value item after the one at index %d; want at most one radix, to-string, friendly or uuidv7", b.valueAt)
	case b.suffixAt >= 0:
		return itemErr(index, it, "", "comes after the suffix at index %d; suffixes go after the value", b.suffixAt)
	}
	b.valueAt = index
	b.l.value = v
	return nil
}

// beforeValue reports why an item that goes before the value cannot stand at index.
func (b *builder) beforeValue(it Item, index int) error {
	switch {
	case b.valueAt >= 0:
		return itemErr(index, it, "", "comes after the value item at index %d; a %s goes before the value", b.valueAt, it.Kind())
	case b.suffixAt >= 0:
		return itemErr(index, it, "", "comes after the suffix at index %d; a %s goes before the value, suffixes after it", b.suffixAt, it.Kind())
	}
	return nil
}

type radixItem struct {
	kind         string
	radix, width int
	padStart     bool
}

func (it *radixItem) Kind() string { return it.kind }

func (it *radixItem) add(b *builder, index int) error {
	if it.radix < 2 || it.radix > maxRadix {
		return itemErr(index, it, "radix", "%d is not in 2–%d", it.radix, maxRadix)
	}
	if most := maxDigits(it.radix); it.width < 0 || it.width > most {
		return itemErr(index, it, "width", "%d is not in 0–%d; want 1–%d digits, or 0 for as many as the largest id has in radix %d (%d)",
			it.width, most, most, it.radix, most)
	}
	return b.setValue(it, index, newRadixValue(it.radix, it.width, it.padStart, it.kind))
}

type literalItem struct{ kind, value string }

func (it *literalItem) Kind() string { return it.kind }

func (it *literalItem) add(b *builder, index int) error {
	if err := checkText(index, it, "value", it.value); err != nil {
		return err
	}
	if it.value == "" {
		return itemErr(index, it, "value", "is empty; want at least one character")
	}
	p := part{lit: it.value, desc: fmt.Sprintf("the %s %q", it.kind, it.value)}
	if it.kind == "suffix" {
		if b.suffixAt < 0 {
			b.suffixAt = index
		}
		b.l.after = append(b.l.after, p)
		return nil
	}
	if err := b.beforeValue(it, index); err != nil {
		return err
	}
	b.l.before = append(b.l.before, p)
	return nil
}

type periodItem struct{ kind, delimiter, pattern string }

func (it *periodItem) Kind() string { return it.kind }

func (it *periodItem) add(b *builder, index int) error {
	switch {
	case b.period == 0:
		return itemErr(index, it, "", "a plain codec has no period; date-prefix and period items need a grouped codec (a periodic-segment generator)")
	case b.periodAt >= 0:
		return itemErr(index, it, "", "is a second period item after the one at index %d; want at most one date-prefix or period", b.periodAt)
	case it.kind == "date-prefix" && index != 0:
		return itemErr(index, it, "", "is item %d; a date-prefix can only be the first item (use a period item to place the period after a prefix)", index)
	}
	if err := b.beforeValue(it, index); err != nil {
		return err
	}
	if err := checkText(index, it, "delimiter", it.delimiter); err != nil {
		return err
	}
	src := it.pattern
	if src == "" {
		src = keyPattern(b.period)
	}
	d, reason := parsePattern(src, b.period)
	if reason != "" {
		return itemErr(index, it, "pattern", "%q %s", it.pattern, reason)
	}
	b.periodAt = index
	b.l.date = d
	b.l.before = append(b.l.before, part{date: d})
	if it.delimiter != "" {
		b.l.before = append(b.l.before, part{lit: it.delimiter, desc: fmt.Sprintf("the delimiter %q after the period", it.delimiter)})
	}
	return nil
}

func checkText(index int, it Item, field, s string) error {
	if !utf8.ValidString(s) {
		return itemErr(index, it, field, "%q is not valid UTF-8", s)
	}
	return nil
}

// keyPattern returns the pattern of p's keys.
func keyPattern(p segment.Period) string {
	return [...]string{segment.Year: "yyyy", segment.YearMonth: "yyyyMM", segment.YearMonthDay: "yyyyMMdd"}[p]
}

// describeAt names the character at s[i] for an error message: 'x', or the byte
// 0xC3 where s holds no valid UTF-8.
func describeAt(s string, i int) string {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02X", s[i])
	}
	return strconv.QuoteRune(r)
}
