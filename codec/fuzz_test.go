package codec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
)

// decodeSeeds are texts near those the fuzzed codecs write; the corpus under
// testdata/fuzz holds more.
var decodeSeeds = []string{
	"", "0", "42", "007", "-1", "9223372036854775807", "9223372036854775808", "AzL8n0Y58m7", "AzL8n0Y58m8",
	"00000000001", "FF", "ff", "000042", "0000042", "BIZ-00000042", "BIZ-", "42-X", "1420", "1٣", "4\xff",
	"20261027-000042", "BIZ-20261027-00000042", "20261032-000042", "20260229-000042", "20240229-000001",
	"2026-7", "M202610.00G", "27.10.2026/G!", "2610270042", "2026年10月27日第42号", "2026年10月27日第",
	"01a17afa-bcd3-7000-8000-00000000702a", "01A17AFA-BCD3-7000-8000-00000000702A", "01a17afa-bcd3-7cc3-8000-00000000702a",
	"01a17afa-bcd3-4000-8000-00000000702a", "016f38a2-f000-7000-8000-000000000000", "ffffffff-ffff-7000-bfff-ffffffffffff",
}

// decodeEncode checks that c either refuses s with a *SyntaxError that points into
// s, or decodes it to an id that it encodes as s again.
func decodeEncode[T comparable](t *testing.T, name string, c codecOf[T], s string) {
	t.Helper()
	v, err := c.Decode(s)
	if err != nil {
		var se *codec.SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, codec.ErrSyntax) || se.Text != s || se.Offset < 0 || se.Offset > len(s) || se.Reason == "" {
			t.Fatalf("%s: Decode(%q) error %#v is not a *SyntaxError with an offset in the text", name, s, err)
		}
		return
	}
	if text, err := c.Encode(v); err != nil || text != s {
		t.Fatalf("%s: Decode(%q) = %v, but Encode(%v) = %q, %v", name, s, v, v, text, err)
	}
}

// FuzzCodec_Decode checks that every Codec decodes exactly the texts it encodes:
// whatever Decode accepts, Encode writes back as the same text.
func FuzzCodec_Decode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	codecs := make([]codec.Codec, len(plainLists))
	for i, l := range plainLists {
		codecs[i] = mustNew(f, l.items...)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, c := range codecs {
			decodeEncode(t, plainLists[i].name, c, s)
		}
	})
}

// FuzzGroupedCodec_Decode checks that every GroupedCodec decodes exactly the texts it
// encodes, and that one without a period item decodes none.
func FuzzGroupedCodec_Decode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	codecs := make([]codec.GroupedCodec, len(groupedLists))
	for i, l := range groupedLists {
		codecs[i] = mustNewGrouped(f, l.period, l.items...)
	}
	noPeriod := mustNewGrouped(f, segment.YearMonthDay, codec.Radix(10, 6, true))
	f.Fuzz(func(t *testing.T, s string) {
		for i, c := range codecs {
			decodeEncode(t, groupedLists[i].name, c, s)
		}
		if id, err := noPeriod.Decode(s); !errors.Is(err, codec.ErrNoPeriod) {
			t.Fatalf("without a period item: Decode(%q) = %v, %v; want ErrNoPeriod", s, id, err)
		}
	})
}

// FuzzNewGrouped_Pattern checks that a date-prefix pattern is either refused with an
// *ItemError on its pattern field, or writes periods that decode back to themselves.
func FuzzNewGrouped_Pattern(f *testing.F) {
	for _, p := range []string{"", "yyyyMMdd", "yyyy-MM-dd", "dd.MM.yy", "yyyy年MM月dd日", "yyyy-MM", "yy", "yyyy'T'MM", "yyyy-M-dd", "MMyyyyMM", "HHmm", "y", "-"} {
		for period := range uint8(3) {
			f.Add(p, period)
		}
	}
	days := []time.Time{
		time.Date(2026, 10, 27, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC),
	}
	f.Fuzz(func(t *testing.T, pattern string, period uint8) {
		p := segment.Year + segment.Period(period%3)
		c, err := codec.NewGrouped(p, codec.DatePrefix("-", pattern), codec.Radix(10, 0, false))
		if err != nil {
			var ie *codec.ItemError
			if !errors.As(err, &ie) || ie.Index != 0 || ie.Field != "pattern" || ie.Reason == "" {
				t.Fatalf("NewGrouped(%v, pattern %q) error %#v is not an *ItemError on the pattern", p, pattern, err)
			}
			return
		}
		for _, day := range days {
			encodeDecode(t, c, segment.GroupedID{Period: p.Key(day), Value: 42})
		}
	})
}

// FuzzGroupedCodec_EncodeKey checks that Encode accepts exactly the period keys that
// segment.Period.ParseKey accepts.
func FuzzGroupedCodec_EncodeKey(f *testing.F) {
	for _, k := range []string{"2026", "202610", "20261027", "20260229", "20240229", "0000", "00000229", "99991231", "20261300", "2026-10", " 2026", "２０２６"} {
		f.Add(k)
	}
	periods := []segment.Period{segment.Year, segment.YearMonth, segment.YearMonthDay}
	codecs := make([]codec.GroupedCodec, len(periods))
	for i, p := range periods {
		codecs[i] = mustNewGrouped(f, p, codec.DatePrefix("", ""))
	}
	f.Fuzz(func(t *testing.T, key string) {
		for i, c := range codecs {
			_, encErr := c.Encode(segment.GroupedID{Period: key, Value: 1})
			_, parseErr := periods[i].ParseKey(key, time.UTC)
			if (encErr == nil) != (parseErr == nil) {
				t.Fatalf("%v key %q: Encode error %v, but ParseKey error %v", periods[i], key, encErr, parseErr)
			}
			if encErr != nil && !errors.Is(encErr, codec.ErrInvalidPeriod) {
				t.Fatalf("%v key %q: Encode error %v does not wrap ErrInvalidPeriod", periods[i], key, encErr)
			}
		}
	})
}
