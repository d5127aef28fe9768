package codec

import (
	"fmt"
	"math"
	"strings"
)

// alphabet holds the digits of every radix, in order: radix r uses alphabet[:r].
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const maxRadix = len(alphabet)

// digitOf maps a byte to its digit in alphabet, or to noDigit.
var digitOf = func() (t [256]byte) {
	for i := range t {
		t[i] = noDigit
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

const noDigit = 0xFF

// maxDigits returns how many digits math.MaxInt64 has in radix.
func maxDigits(radix int) int {
	n := 0
	for v := uint64(math.MaxInt64); v > 0; v /= uint64(radix) {
		n++
	}
	return n
}

// radixValue writes the value in a radix, as the radix and to-string items ask.
type radixValue struct {
	radix    uint64
	width    int  // the most digits; maxDigits(radix) when the item gave none
	widthSet bool // the item gave a width
	padStart bool
	max      int64  // the largest value that width digits hold
	safeLen  int    // texts shorter than this cannot pass math.MaxInt64
	cutoff   uint64 // math.MaxInt64 / radix: a larger value overflows when shifted
	digits   string // the radix's digits, for messages: "0-9A-Za-z"
	kind     string // the item's kind, for messages
}

func newRadixValue(radix, width int, padStart bool, kind string) *radixValue {
	r := &radixValue{radix: uint64(radix), width: width, widthSet: width > 0, padStart: padStart,
		max: math.MaxInt64, safeLen: maxDigits(radix), cutoff: math.MaxInt64 / uint64(radix),
		digits: digitRange(radix), kind: kind}
	if !r.widthSet {
		r.width = r.safeLen
	}
	// radix^width - 1, unless that passes math.MaxInt64.
	p := uint64(1)
	for range r.width {
		if p > math.MaxInt64/r.radix {
			return r
		}
		p *= r.radix
	}
	r.max = int64(p - 1)
	return r
}

// digitRange describes the first radix digits of alphabet: "0-7", "0-9A-F", "0-9A-Za-z".
func digitRange(radix int) string {
	var b strings.Builder
	for _, run := range [][2]int{{0, 10}, {10, 36}, {36, 62}} {
		first, last := run[0], min(radix, run[1])-1
		if first > last {
			break
		}
		b.WriteByte(alphabet[first])
		if last > first {
			b.WriteByte('-')
			b.WriteByte(alphabet[last])
		}
	}
	return b.String()
}

func (r *radixValue) want() string {
	return fmt.Sprintf("a value of radix-%d digits (%s)", r.radix, r.digits)
}

func (r *radixValue) format(v int64) (text [maxValueLen]byte, start int, err error) {
	if v < 0 {
		return text, 0, fmt.Errorf("codec: %w: %d is negative; ids are ≥ 0", ErrRange, v)
	}
	if v > r.max {
		return text, 0, fmt.Errorf("codec: %w: %d is wider than the width %d of the %s item; the largest is %d",
			ErrRange, v, r.width, r.kind, r.max)
	}
	i := len(text)
	u := uint64(v)
	if r.radix == 10 { // a constant divisor compiles to a multiplication
		for u >= 10 {
			q := u / 10
			i--
			text[i] = byte('0' + u - q*10)
			u = q
		}
	} else {
		for u >= r.radix {
			q := u / r.radix
			i--
			text[i] = alphabet[u-q*r.radix]
			u = q
		}
	}
	i--
	text[i] = alphabet[u]
	if r.padStart {
		for len(text)-i < r.width {
			i--
			text[i] = '0'
		}
	}
	return text, i, nil
}

func (r *radixValue) parse(s string, off int) (int64, error) {
	if s == "" {
		return 0, syntaxErr(off, "want %s here", r.want())
	}
	if !r.padStart && len(s) > 1 && s[0] == '0' {
		return 0, syntaxErr(off, "leading zero; without pad-start only the value 0 starts with 0")
	}
	n := min(len(s), r.width)
	var u uint64
	for i := range n {
		d := uint64(digitOf[s[i]])
		if d >= r.radix {
			return 0, syntaxErr(off+i, "found %s; want a radix-%d digit (%s)", describeAt(s, i), r.radix, r.digits)
		}
		if n >= r.safeLen && (u > r.cutoff || u*r.radix > math.MaxInt64-d) {
			return 0, syntaxErr(off+i, "the value passes %d, the largest id", int64(math.MaxInt64))
		}
		u = u*r.radix + d
	}
	switch {
	case len(s) > r.width && r.widthSet:
		return 0, syntaxErr(off+r.width, "found %s past the %d digits that width %d allows", describeAt(s, r.width), r.width, r.width)
	case len(s) > r.width:
		return 0, syntaxErr(off+r.width, "found %s past %d digits, the most an id has in radix %d", describeAt(s, r.width), r.width, r.radix)
	case r.padStart && len(s) < r.width:
		return 0, syntaxErr(off+len(s), "the value ends after %d digits; pad-start wants exactly %d", len(s), r.width)
	}
	return int64(u), nil
}
