package codec_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/codec"
)

// codecOf is what Codec and GroupedCodec have in common.
type codecOf[T comparable] interface {
	Encode(T) (string, error)
	Decode(string) (T, error)
}

// encodeDecode returns c's text of v and checks that c decodes it back to v.
func encodeDecode[T comparable](t testing.TB, c codecOf[T], v T) string {
	t.Helper()
	text, err := c.Encode(v)
	if err != nil {
		t.Fatalf("Encode(%v): %v", v, err)
	}
	if back, err := c.Decode(text); err != nil || back != v {
		t.Fatalf("Decode(Encode(%v) = %q) = %v, %v", v, text, back, err)
	}
	return text
}

func mustNew(t testing.TB, items ...codec.Item) codec.Codec {
	t.Helper()
	c, err := codec.New(items...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// rejectCase is a text that the codec of a list must refuse, where and why.
type rejectCase struct {
	name   string
	items  []codec.Item
	text   string
	offset int
	reason string
}

// testRejects checks that the codecs that build makes refuse the texts of tests.
func testRejects[T comparable](t *testing.T, build func([]codec.Item) codecOf[T], tests []rejectCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := build(tc.items).Decode(tc.text)
			if err == nil {
				t.Fatalf("Decode(%q) = %v, want an error", tc.text, v)
			}
			wantSyntaxError(t, err, tc.text, tc.offset, tc.reason)
		})
	}
}

// wantSyntaxError checks that err is a *SyntaxError about text at offset whose reason
// holds reason.
func wantSyntaxError(t *testing.T, err error, text string, offset int, reason string) {
	t.Helper()
	var se *codec.SyntaxError
	switch {
	case !errors.As(err, &se):
		t.Errorf("Decode(%q) error = %v, want a *SyntaxError", text, err)
	case !errors.Is(err, codec.ErrSyntax):
		t.Errorf("Decode(%q) error %v does not wrap ErrSyntax", text, err)
	case se.Text != text || se.Offset != offset || !strings.Contains(se.Reason, reason):
		t.Errorf("Decode(%q) error = %v (offset %d), want offset %d and a reason with %q", text, err, se.Offset, offset, reason)
	}
}

func TestCodec_EncodeDecodeEachItem(t *testing.T) {
	tests := []struct {
		name  string
		items []codec.Item
		v     int64
		want  string
	}{
		{"no items is decimal: zero", nil, 0, "0"},
		{"no items is decimal", nil, 42, "42"},
		{"no items is decimal: MaxInt64", nil, math.MaxInt64, "9223372036854775807"},
		{"radix 2", []codec.Item{codec.Radix(2, 0, false)}, 5, "101"},
		{"radix 2 MaxInt64", []codec.Item{codec.Radix(2, 0, false)}, math.MaxInt64, strings.Repeat("1", 63)},
		{"radix 8 MaxInt64", []codec.Item{codec.Radix(8, 0, false)}, math.MaxInt64, strings.Repeat("7", 21)},
		{"radix 16 is upper case", []codec.Item{codec.Radix(16, 0, false)}, 255, "FF"},
		{"radix 36 last digit", []codec.Item{codec.Radix(36, 0, false)}, 35, "Z"},
		{"radix 37 first lower-case digit", []codec.Item{codec.Radix(37, 0, false)}, 36, "a"},
		{"radix 62 last digit", []codec.Item{codec.Radix(62, 0, false)}, 61, "z"},
		{"radix 62 two digits", []codec.Item{codec.Radix(62, 0, false)}, 62, "10"},
		{"radix 62 MaxInt64", []codec.Item{codec.Radix(62, 0, false)}, math.MaxInt64, "AzL8n0Y58m7"},
		{"radix 62 zero", []codec.Item{codec.Radix(62, 0, false)}, 0, "0"},
		{"radix 62 pad-start without width pads to 11", []codec.Item{codec.Radix(62, 0, true)}, 1, "00000000001"},
		{"radix 62 width 3 at its largest", []codec.Item{codec.Radix(62, 3, true)}, 62*62*62 - 1, "zzz"},
		{"radix 10 width 6 padded", []codec.Item{codec.Radix(10, 6, true)}, 42, "000042"},
		{"radix 10 width 6 padded zero", []codec.Item{codec.Radix(10, 6, true)}, 0, "000000"},
		{"radix 10 width 6 padded largest", []codec.Item{codec.Radix(10, 6, true)}, 999999, "999999"},
		{"radix 10 width 6 not padded", []codec.Item{codec.Radix(10, 6, false)}, 42, "42"},
		{"radix 10 width 19 padded MaxInt64", []codec.Item{codec.Radix(10, 19, true)}, math.MaxInt64, "9223372036854775807"},
		{"to-string padded", []codec.Item{codec.ToString(8, true)}, 42, "00000042"},
		{"to-string pad-start without width pads to 19", []codec.Item{codec.ToString(0, true)}, 42, "0000000000000000042"},
		{"to-string plain", []codec.Item{codec.ToString(0, false)}, 1234, "1234"},
		{"prefix with implicit decimal", []codec.Item{codec.Prefix("BIZ-")}, 42, "BIZ-42"},
		{"prefix with implicit decimal: zero", []codec.Item{codec.Prefix("BIZ-")}, 0, "BIZ-0"},
		{"radix 10 width 6 padded: value alone", []codec.Item{codec.Radix(10, 6, true)}, 7, "000007"},
		{"suffix with implicit decimal", []codec.Item{codec.Suffix("-X")}, 42, "42-X"},
		{"prefix then value", []codec.Item{codec.Prefix("BIZ-"), codec.ToString(8, true)}, 42, "BIZ-00000042"},
		{"value then suffix", []codec.Item{codec.Radix(36, 4, true), codec.Suffix(".cn")}, 42, "0016.cn"},
		{"prefixes and suffixes in list order", []codec.Item{codec.Prefix("A"), codec.Prefix("B"), codec.Radix(62, 0, false), codec.Suffix("Y"), codec.Suffix("Z")}, 62, "AB10YZ"},
		{"UTF-8 prefix", []codec.Item{codec.Prefix("订单"), codec.ToString(4, true)}, 7, "订单0007"},
		{"prefix of digits", []codec.Item{codec.Prefix("00"), codec.ToString(0, false)}, 0, "000"},
		{"suffix of digits", []codec.Item{codec.Radix(10, 0, false), codec.Suffix("0")}, 10, "100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := encodeDecode(t, mustNew(t, tc.items...), tc.v); got != tc.want {
				t.Fatalf("Encode(%d) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

func TestCodec_EncodeRefusesNegativeAndOverWideValues(t *testing.T) {
	tests := []struct {
		name   string
		items  []codec.Item
		v      int64
		reason string
	}{
		{"negative", nil, -1, "-1 is negative"},
		{"MinInt64", []codec.Item{codec.Radix(62, 0, false)}, math.MinInt64, "is negative"},
		{"over padded width", []codec.Item{codec.Radix(10, 6, true)}, 1_000_000, "1000000 is wider than the width 6 of the radix item; the largest is 999999"},
		{"over unpadded width", []codec.Item{codec.ToString(6, false)}, 1_000_000, "the width 6 of the to-string item"},
		{"over radix 62 width", []codec.Item{codec.Prefix("X"), codec.Radix(62, 3, true)}, 62 * 62 * 62, "the largest is 238327"},
		{"over radix 2 width 1", []codec.Item{codec.Radix(2, 1, false)}, 2, "the largest is 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mustNew(t, tc.items...).Encode(tc.v)
			if !errors.Is(err, codec.ErrRange) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("Encode(%d) = %q, %v; want ErrRange saying %q", tc.v, got, err, tc.reason)
			}
			if got != "" {
				t.Errorf("Encode(%d) returned text %q with its error", tc.v, got)
			}
		})
	}
}

func TestCodec_DecodeRejectsTextEncodeCannotProduce(t *testing.T) {
	decimal := []codec.Item{}
	padded6 := []codec.Item{codec.Radix(10, 6, true)}
	width6 := []codec.Item{codec.Radix(10, 6, false)}
	r62 := []codec.Item{codec.Radix(62, 0, false)}
	r62pad := []codec.Item{codec.Radix(62, 0, true)}
	hex := []codec.Item{codec.Radix(16, 0, false)}
	biz := []codec.Item{codec.Prefix("BIZ-"), codec.ToString(8, true)}
	suffix := []codec.Item{codec.Radix(10, 0, false), codec.Suffix("-X")}
	both := []codec.Item{codec.Prefix("A"), codec.Prefix("B"), codec.Radix(10, 0, false), codec.Suffix("Y"), codec.Suffix("Z")}
	testRejects(t, func(items []codec.Item) codecOf[int64] { return mustNew(t, items...) }, []rejectCase{
		{"empty", decimal, "", 0, "want a value of radix-10 digits (0-9)"},
		{"leading zero", decimal, "007", 0, "leading zero"},
		{"sign", decimal, "-1", 0, "found '-'; want a radix-10 digit (0-9)"},
		{"plus sign", decimal, "+1", 0, "found '+'"},
		{"leading space", decimal, " 1", 0, "found ' '"},
		{"trailing space", decimal, "1 ", 1, "found ' '"},
		{"underscore", decimal, "1_000", 1, "found '_'"},
		{"non-ASCII digit", decimal, "1٣", 1, "found '٣'"},
		{"invalid UTF-8", decimal, "4\xff", 1, "found byte 0xFF"},
		{"MaxInt64 + 1", decimal, "9223372036854775808", 18, "passes 9223372036854775807"},
		{"20 digits overflowing early", decimal, "99999999999999999999", 18, "passes"},
		{"20 digits", decimal, "10000000000000000000", 19, "past 19 digits"},
		{"21 digits below MaxInt64 at 19", decimal, "123456789012345678901", 19, "past 19 digits, the most an id has in radix 10"},
		{"padded too short", padded6, "00042", 5, "ends after 5 digits; pad-start wants exactly 6"},
		{"padded too long", padded6, "0000042", 6, "found '2' past the 6 digits that width 6 allows"},
		{"padded bad digit", padded6, "00004a", 5, "found 'a'"},
		{"padded empty", padded6, "", 0, "want a value"},
		{"unpadded over width", width6, "1234567", 6, "past the 6 digits"},
		{"unpadded with padding", width6, "000042", 0, "leading zero"},
		{"radix 62 past MaxInt64", r62, "AzL8n0Y58m8", 10, "passes"},
		{"radix 62 twelve digits", r62, "AzL8n0Y58m71", 11, "past 11 digits"},
		{"radix 62 leading zero", r62, "0A", 0, "leading zero"},
		{"radix 62 punctuation", r62, "A-", 1, "want a radix-62 digit (0-9A-Za-z)"},
		{"radix 62 padded short", r62pad, "1", 1, "pad-start wants exactly 11"},
		{"radix 16 lower case", hex, "ff", 0, "found 'f'; want a radix-16 digit (0-9A-F)"},
		{"radix 16 past F", hex, "G", 0, "found 'G'"},
		{"radix 2 digits", []codec.Item{codec.Radix(2, 0, false)}, "12", 1, "found '2'; want a radix-2 digit (0-1)"},
		{"radix 11 digits", []codec.Item{codec.Radix(11, 0, false)}, "AB", 1, "want a radix-11 digit (0-9A)"},
		{"radix 37 digits", []codec.Item{codec.Radix(37, 0, false)}, "ab", 1, "want a radix-37 digit (0-9A-Za)"},
		{"prefix missing", biz, "00000042", 0, `found '0'; want the prefix "BIZ-"`},
		{"prefix cut short", biz, "BIZ00000042", 3, `found '0'; want the prefix "BIZ-"`},
		{"prefix in lower case", biz, "biz-00000042", 0, "found 'b'"},
		{"only part of the prefix", biz, "BI", 2, `text ends; want the prefix "BIZ-"`},
		{"only the prefix", biz, "BIZ-", 4, "want a value"},
		{"text before the prefix", biz, "XBIZ-00000042", 0, "found 'X'"},
		{"suffix missing", suffix, "42", 2, `text ends; want a value of radix-10 digits (0-9) and then the suffix "-X"`},
		{"only the suffix", suffix, "-X", 0, "want a value"},
		{"suffix wrong", suffix, "42-Y", 3, `found 'Y'; want the suffix "-X"`},
		{"suffix twice", suffix, "42-X-X", 2, "found '-'"},
		{"second suffix wrong", both, "AB42YY", 5, `found 'Y'; want the suffix "Z"`},
		{"second prefix wrong", both, "AA42YZ", 1, `want the prefix "B"`},
		{"everything but the value", both, "ABYZ", 2, "want a value"},
		{"too short for the suffixes", both, "ABZ", 3, "text ends"},
	})
}

func TestCodec_NewRejectsInvalidItems(t *testing.T) {
	tests := []struct {
		name   string
		items  []codec.Item
		index  int
		item   string
		field  string
		reason string
	}{
		{"radix 1", []codec.Item{codec.Radix(1, 0, false)}, 0, "radix", "radix", "1 is not in 2–62"},
		{"radix 63", []codec.Item{codec.Radix(63, 0, false)}, 0, "radix", "radix", "63 is not in 2–62"},
		{"negative width", []codec.Item{codec.Radix(10, -1, false)}, 0, "radix", "width", "-1 is not in 0–19"},
		{"width over MaxInt64's digits", []codec.Item{codec.Radix(62, 12, true)}, 0, "radix", "width", "12 is not in 0–11"},
		{"width over MaxInt64's bits", []codec.Item{codec.Radix(2, 64, true)}, 0, "radix", "width", "64 is not in 0–63"},
		{"to-string width", []codec.Item{codec.Prefix("A"), codec.ToString(20, true)}, 1, "to-string", "width", "20 is not in 0–19"},
		{"two value items", []codec.Item{codec.Radix(10, 0, false), codec.Prefix("A"), codec.ToString(0, false)}, 1, "prefix", "", "comes after the value item at index 0"},
		{"second value item", []codec.Item{codec.Radix(10, 0, false), codec.ToString(0, false)}, 1, "to-string", "", "second value item after the one at index 0; want at most one radix, to-string, friendly or uuidv7"},
		{"empty prefix", []codec.Item{codec.Prefix("")}, 0, "prefix", "value", "is empty"},
		{"empty suffix", []codec.Item{codec.Radix(10, 0, false), codec.Suffix("")}, 1, "suffix", "value", "is empty"},
		{"prefix not UTF-8", []codec.Item{codec.Prefix("\xff")}, 0, "prefix", "value", "not valid UTF-8"},
		{"prefix after the value", []codec.Item{codec.Radix(62, 0, false), codec.Prefix("A")}, 1, "prefix", "", "comes after the value item at index 0; a prefix goes before the value"},
		{"prefix after a suffix", []codec.Item{codec.Suffix("Z"), codec.Prefix("A")}, 1, "prefix", "", "comes after the suffix at index 0"},
		{"value after a suffix", []codec.Item{codec.Prefix("A"), codec.Suffix("Z"), codec.Radix(62, 0, false)}, 2, "radix", "", "comes after the suffix at index 1"},
		{"nil item", []codec.Item{codec.Prefix("A"), nil}, 1, "", "", "is nil; want an item made by Radix"},
		{"date-prefix in a plain codec", []codec.Item{codec.DatePrefix("-", ""), codec.Radix(10, 6, true)}, 0, "date-prefix", "", "a plain codec has no period"},
		{"period in a plain codec", []codec.Item{codec.Prefix("BIZ-"), codec.Period("-")}, 1, "period", "", "a plain codec has no period"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := codec.New(tc.items...)
			if c != nil {
				t.Errorf("New returned a codec with its error")
			}
			wantItemError(t, err, tc.index, tc.item, tc.field, tc.reason)
		})
	}
}

func wantItemError(t *testing.T, err error, index int, item, field, reason string) {
	t.Helper()
	var ie *codec.ItemError
	switch {
	case !errors.As(err, &ie):
		t.Fatalf("error = %v, want an *ItemError", err)
	case !errors.Is(err, codec.ErrInvalidCodec):
		t.Errorf("error %v does not wrap ErrInvalidCodec", err)
	case ie.Index != index || ie.Item != item || ie.Field != field || !strings.Contains(ie.Reason, reason):
		t.Errorf("error = %+v, want index %d, item %q, field %q and a reason with %q", *ie, index, item, field, reason)
	}
}

func TestItemError_MessageNamesIndexItemAndField(t *testing.T) {
	_, err := codec.New(codec.Radix(10, 30, true))
	want := "codec: item 0 (radix) width: 30 is not in 0–19; want 1–19 digits, or 0 for as many as the largest id has in radix 10 (19)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	_, err = codec.New(codec.Radix(10, 0, false), codec.Radix(10, 0, false))
	want = "codec: item 1 (radix): is a second value item after the one at index 0; want at most one radix, to-string, friendly or uuidv7"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestItem_KindIsTheListName(t *testing.T) {
	for want, it := range map[string]codec.Item{
		"radix":       codec.Radix(62, 0, false),
		"to-string":   codec.ToString(0, false),
		"prefix":      codec.Prefix("A"),
		"suffix":      codec.Suffix("Z"),
		"date-prefix": codec.DatePrefix("-", ""),
		"period":      codec.Period("-"),
	} {
		if got := it.Kind(); got != want {
			t.Errorf("Kind() = %q, want %q", got, want)
		}
	}
}
