package codec

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/cosid-go/cosid/snowflake"
)

// UUIDv7 returns the item that writes a Snowflake id of layout l as an RFC 9562
// version-7 UUID in its canonical form, lowercase 8-4-4-4-12:
//
//	01a17afa-bcd3-7000-8000-00000000702a
//	│             ││   │               └ machine 7 and sequence 42: the id's low 22 bits
//	│             ││   └ the variant, 10 in binary: 8, 9, a or b
//	│             │└ rand_a: 000
//	│             └ the version: 7
//	└ Unix ms 1793064615123, 2026-10-27T01:30:15.123Z: 48 bits
//
// The first 48 bits are the id's time in Unix milliseconds (l's Epoch plus its
// timestamp), then the version 7, 12 bits of zeros, the RFC variant (binary 10),
// and 62 bits that hold the id's machine and sequence in their low
// MachineBits+SequenceBits, as the id does, with zeros above them. So the UUIDs of
// one generator sort as its ids do, in issue order, and two of them are equal only
// when the ids are: unlike a random UUIDv7's, its bits never collide across the
// fleet, whose machine ids are leased.
//
// l's Unit must be 1ms, its epoch no earlier than 1970, and its last time before
// the year 10889 (2^48 ms, the most a UUIDv7 holds). The item stands alone in its
// list: the text is a UUID and nothing else. Decode reads back exactly the texts
// Encode writes: it refuses uppercase digits, another version or variant, and a
// UUID with bits set where ours have zeros (a random UUIDv7, a UUID of another
// layout), each with the byte at fault.
func UUIDv7(l snowflake.Layout) Item { return &uuidv7Item{layout: l} }

type uuidv7Item struct{ layout snowflake.Layout }

func (it *uuidv7Item) Kind() string { return "uuidv7" }

// uuidMaxMs is the first Unix millisecond that a UUIDv7's 48 bits cannot hold.
const uuidMaxMs = 1 << 48

func (it *uuidv7Item) add(b *builder, index int) error {
	l := it.layout
	if err := l.Validate(); err != nil {
		return itemErr(index, it, "", "has an invalid layout: %v", err)
	}
	if index != 0 {
		return itemErr(index, it, "", "is item %d; a uuidv7 stands alone in its list, since its text is a UUID and nothing else", index)
	}
	if b.period != 0 {
		return itemErr(index, it, "", "writes a Snowflake id; a grouped codec's ids (a periodic segment's) are not")
	}
	if l.Unit != time.Millisecond {
		return itemErr(index, it, "", "needs a layout whose unit is 1ms, the unit of a UUIDv7's time; this layout's is %v", l.Unit)
	}
	epoch := l.Epoch.UnixMilli()
	if epoch < 0 {
		return itemErr(index, it, "", "needs an epoch no earlier than 1970-01-01, where a UUIDv7's time starts; this layout's is %v", l.Epoch)
	}
	if last := epoch + int64(1)<<l.TimestampBits - 1; last >= uuidMaxMs {
		return itemErr(index, it, "", "needs a layout whose times end before %v (2^48 ms, the most a UUIDv7 holds); %d timestamp bits from %v end at %v",
			time.UnixMilli(uuidMaxMs).UTC().Format(time.DateOnly), l.TimestampBits, l.Epoch.Format(time.DateOnly), time.UnixMilli(last).UTC().Format(time.DateOnly))
	}
	b.aloneAt = index
	low := l.MachineBits + l.SequenceBits
	return b.setValue(it, index, &uuidv7Value{epochMs: epoch, low: low, maxTS: int64(1)<<l.TimestampBits - 1})
}

// uuidText is the length of a canonical UUID: 32 hex digits and 4 dashes.
const uuidText = 36

type uuidv7Value struct {
	epochMs int64 // the layout's epoch in Unix milliseconds
	low     int   // the bits of the machine and the sequence, below the timestamp
	maxTS   int64 // the layout's largest timestamp
}

func (u *uuidv7Value) want() string {
	return "a UUIDv7 of the generator, lowercase 8-4-4-4-12 such as 01a17afa-bcd3-7000-8000-00000000702a"
}

const (
	uuidVersion = 0x7000             // the version 7, in the high 64 bits' third group
	uuidVariant = uint64(0b10) << 62 // the RFC 9562 variant, the low 64 bits' top two
	uuidLowBits = uint64(1)<<62 - 1  // the 62 bits below the variant
	hexDigits   = "0123456789abcdef" // lowercase, as RFC 9562 writes
)

// uuidByteAt is where the text writes each of a UUID's 16 bytes, as two hex
// digits; dashes stand at 8, 13, 18 and 23.
var uuidByteAt = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

func (u *uuidv7Value) format(v int64) (text [maxValueLen]byte, start int, err error) {
	ts := v >> u.low
	switch {
	case v < 0:
		return text, 0, fmt.Errorf("codec: uuidv7: %w: %d is negative", ErrRange, v)
	case ts > u.maxTS:
		return text, 0, fmt.Errorf("codec: uuidv7: %w: %d is not an id of the layout: it has bits above its %d", ErrRange, v, bits.Len64(uint64(u.maxTS))+u.low)
	}
	hi := uint64(u.epochMs+ts)<<16 | uuidVersion
	lo := uuidVariant | uint64(v)&(1<<u.low-1)
	start = maxValueLen - uuidText
	out := text[start:]
	for i, at := range uuidByteAt {
		word, shift := hi, 56-8*i
		if i >= 8 {
			word, shift = lo, 56-8*(i-8)
		}
		b := byte(word >> shift)
		out[at], out[at+1] = hexDigits[b>>4], hexDigits[b&0xf]
	}
	out[8], out[13], out[18], out[23] = '-', '-', '-', '-'
	return text, start, nil
}

func (u *uuidv7Value) parse(s string, off int) (int64, error) {
	hi, lo, ok := uuidFast(s)
	if !ok {
		return 0, uuidSyntax(s, off)
	}
	switch {
	case hi>>12&0xf != 7:
		return 0, syntaxErr(off+14, "version %d; want 7, a UUIDv7", hi>>12&0xf)
	case lo&^uuidLowBits != uuidVariant:
		return 0, syntaxErr(off+19, "variant bits %02b; want 10, the RFC 9562 variant", lo>>62)
	case hi&0xfff != 0:
		return 0, syntaxErr(off+15, "rand_a is %03x; want 000: not a UUID of this generator, whose machine and sequence are in the last 62 bits", hi&0xfff)
	case lo&uuidLowBits>>u.low != 0:
		return 0, syntaxErr(off+19, "bits above the machine and sequence (the low %d) are set: not a UUID of this generator", u.low)
	}
	ms := int64(hi >> 16)
	ts := ms - u.epochMs
	switch {
	case ts < 0:
		return 0, syntaxErr(off, "time %v is before the generator's epoch %v", time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), time.UnixMilli(u.epochMs).UTC().Format(time.RFC3339Nano))
	case ts > u.maxTS:
		return 0, syntaxErr(off, "time %v is past the generator's last time %v", time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), time.UnixMilli(u.epochMs+u.maxTS).UTC().Format(time.RFC3339Nano))
	}
	return ts<<u.low | int64(lo&uuidLowBits), nil
}

// uuidDash checks the dash at s[at], which starts at byte off of the whole text.
func uuidDash(s string, at, off int) error {
	switch {
	case at >= len(s):
		return syntaxErr(off+len(s), "text ends; want %d characters, 8-4-4-4-12", uuidText)
	case s[at] != '-':
		return syntaxErr(off+at, "found %s; want - at byte %d of 8-4-4-4-12", describeAt(s, at), at)
	}
	return nil
}

// uuidHex reads the lowercase hex digit at s[at], which starts at byte off of the
// whole text.
func uuidHex(s string, at, off int) (byte, error) {
	if at >= len(s) {
		return 0, syntaxErr(off+len(s), "text ends; want %d characters, 8-4-4-4-12", uuidText)
	}
	switch c := s[at]; {
	case c >= '0' && c <= '9':
		return c - '0', nil
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, nil
	case c >= 'A' && c <= 'F':
		return 0, syntaxErr(off+at, "found %s; want a lowercase hex digit, as the canonical form writes", describeAt(s, at))
	}
	return 0, syntaxErr(off+at, "found %s; want a hex digit 0-9a-f", describeAt(s, at))
}

// unhex maps a lowercase hex digit to its value, and every other byte to 0xff.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range hexDigits {
		t[c] = byte(i)
	}
	return t
}()

// uuidFast reads the two halves of a canonical lowercase UUID, and reports false
// for any other text: the path of every text Encode wrote.
func uuidFast(s string) (hi, lo uint64, ok bool) {
	if len(s) != uuidText || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return 0, 0, false
	}
	for i, at := range uuidByteAt {
		a, b := unhex[s[at]], unhex[s[at+1]]
		if a > 15 || b > 15 {
			return 0, 0, false
		}
		if i < 8 {
			hi = hi<<8 | uint64(a<<4|b)
		} else {
			lo = lo<<8 | uint64(a<<4|b)
		}
	}
	return hi, lo, true
}

// uuidSyntax returns the error of a text that uuidFast refused: where it is not
// a canonical lowercase UUID, and why.
func uuidSyntax(s string, off int) error {
	for _, at := range uuidByteAt {
		if at == 9 || at == 14 || at == 19 || at == 24 { // a dash before this byte
			if err := uuidDash(s, at-1, off); err != nil {
				return err
			}
		}
		for k := at; k < at+2; k++ {
			if _, err := uuidHex(s, k, off); err != nil {
				return err
			}
		}
	}
	return syntaxErr(off+uuidText, "found %s after the UUID; want the end", describeAt(s, uuidText))
}
