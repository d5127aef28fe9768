package codec_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
)

func mustNewGrouped(t testing.TB, p segment.Period, items ...codec.Item) codec.GroupedCodec {
	t.Helper()
	c, err := codec.NewGrouped(p, items...)
	if err != nil {
		t.Fatalf("NewGrouped: %v", err)
	}
	return c
}

// The codec lists of the seed and of issue 4.
var (
	billList = []codec.Item{codec.DatePrefix("-", ""), codec.Radix(10, 6, true)}
	bizList  = []codec.Item{codec.Prefix("BIZ-"), codec.Period("-"), codec.ToString(8, true)}
)

func TestGrouped_EncodeDecode(t *testing.T) {
	oct27 := segment.GroupedID{Period: "20261027", Value: 42}
	tests := []struct {
		name   string
		period segment.Period
		items  []codec.Item
		id     segment.GroupedID
		want   string
	}{
		{"seed bill: date-prefix and padded radix 10", segment.YearMonthDay, billList, oct27, "20261027-000042"},
		{"period after a business prefix", segment.YearMonthDay, bizList, oct27, "BIZ-20261027-00000042"},
		{"year", segment.Year, []codec.Item{codec.DatePrefix("-", "")}, segment.GroupedID{Period: "2026", Value: 7}, "2026-7"},
		{"year with yy", segment.Year, []codec.Item{codec.DatePrefix("", "yy"), codec.ToString(4, true)}, segment.GroupedID{Period: "2026", Value: 7}, "260007"},
		{"year-month", segment.YearMonth, []codec.Item{codec.DatePrefix("/", "")}, segment.GroupedID{Period: "202610", Value: 42}, "202610/42"},
		{"year-month pattern", segment.YearMonth, []codec.Item{codec.DatePrefix("/", "yyyy-MM")}, segment.GroupedID{Period: "202610", Value: 42}, "2026-10/42"},
		{"pattern yyyy-MM-dd", segment.YearMonthDay, []codec.Item{codec.DatePrefix("-", "yyyy-MM-dd"), codec.Radix(10, 6, true)}, oct27, "2026-10-27-000042"},
		{"pattern day first", segment.YearMonthDay, []codec.Item{codec.DatePrefix("/", "dd.MM.yyyy")}, oct27, "27.10.2026/42"},
		{"pattern yyMMdd", segment.YearMonthDay, []codec.Item{codec.DatePrefix("", "yyMMdd"), codec.ToString(4, true)}, oct27, "2610270042"},
		{"pattern with UTF-8 text", segment.YearMonthDay, []codec.Item{codec.DatePrefix("第", "yyyy年MM月dd日"), codec.Suffix("号")}, oct27, "2026年10月27日第42号"},
		{"period with no delimiter", segment.YearMonthDay, []codec.Item{codec.Prefix("A"), codec.Period(""), codec.Radix(62, 0, false)}, oct27, "A20261027g"},
		{"period first, then a prefix", segment.YearMonthDay, []codec.Item{codec.Period("-"), codec.Prefix("BIZ-"), codec.Radix(10, 0, false)}, oct27, "20261027-BIZ-42"},
		{"everything", segment.YearMonth, []codec.Item{codec.Prefix("A-"), codec.Period("/"), codec.Prefix("B-"), codec.Radix(36, 4, true), codec.Suffix(".x")}, segment.GroupedID{Period: "202610", Value: 42}, "A-202610/B-0016.x"},
		{"period with implicit decimal", segment.YearMonthDay, []codec.Item{codec.Period("-")}, oct27, "20261027-42"},
		{"leap day", segment.YearMonthDay, billList, segment.GroupedID{Period: "20240229", Value: 1}, "20240229-000001"},
		{"year 0", segment.YearMonthDay, billList, segment.GroupedID{Period: "00000229", Value: 0}, "00000229-000000"},
		{"year 9999", segment.YearMonthDay, billList, segment.GroupedID{Period: "99991231", Value: 999999}, "99991231-999999"},
		{"largest value", segment.YearMonthDay, []codec.Item{codec.DatePrefix("-", "")}, segment.GroupedID{Period: "20261027", Value: math.MaxInt64}, "20261027-9223372036854775807"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := encodeDecode(t, mustNewGrouped(t, tc.period, tc.items...), tc.id); got != tc.want {
				t.Fatalf("Encode(%v) = %q, want %q", tc.id, got, tc.want)
			}
		})
	}
}

func TestGrouped_WithoutPeriodItem_LeavesPeriodOutAndCannotDecode(t *testing.T) {
	for name, items := range map[string][]codec.Item{
		"no items":           nil,
		"padded radix":       {codec.Radix(10, 6, true)},
		"prefix and a value": {codec.Prefix("BIZ-"), codec.ToString(8, true)},
	} {
		t.Run(name, func(t *testing.T) {
			c := mustNewGrouped(t, segment.YearMonthDay, items...)
			text, err := c.Encode(segment.GroupedID{Period: "20261027", Value: 42})
			if err != nil || strings.Contains(text, "2026") {
				t.Fatalf("Encode = %q, %v; want a text without the period", text, err)
			}
			id, err := c.Decode(text)
			if !errors.Is(err, codec.ErrNoPeriod) || !strings.Contains(err.Error(), "the period is not in the text") {
				t.Fatalf("Decode(%q) = %v, %v; want ErrNoPeriod", text, id, err)
			}
			if id != (segment.GroupedID{}) {
				t.Errorf("Decode returned %v with its error", id)
			}
			// The period is still checked: a codec without it must not accept garbage.
			if _, err := c.Encode(segment.GroupedID{Period: "2026", Value: 42}); !errors.Is(err, codec.ErrInvalidPeriod) {
				t.Errorf("Encode with a YEAR key = %v, want ErrInvalidPeriod", err)
			}
		})
	}
}

func TestGrouped_EncodeRefusesInvalidIDs(t *testing.T) {
	bill := mustNewGrouped(t, segment.YearMonthDay, billList...)
	yy := mustNewGrouped(t, segment.YearMonthDay, codec.DatePrefix("-", "yyMMdd"))
	month := mustNewGrouped(t, segment.YearMonth, codec.DatePrefix("-", ""))
	tests := []struct {
		name   string
		c      codec.GroupedCodec
		id     segment.GroupedID
		is     error
		reason string
	}{
		{"empty period", bill, segment.GroupedID{Period: "", Value: 1}, codec.ErrInvalidPeriod, `"" is not a YEAR_MONTH_DAY key like "20261027": byte 0: text ends`},
		{"short key", bill, segment.GroupedID{Period: "2026102", Value: 1}, codec.ErrInvalidPeriod, "byte 7: text ends; want the day (dd)"},
		{"long key", bill, segment.GroupedID{Period: "202610271", Value: 1}, codec.ErrInvalidPeriod, "byte 8: found '1' after the key"},
		{"day 32", bill, segment.GroupedID{Period: "20261032", Value: 1}, codec.ErrInvalidPeriod, "day 32 is not in 01–31"},
		{"no leap day in 2026", bill, segment.GroupedID{Period: "20260229", Value: 1}, codec.ErrInvalidPeriod, "day 29 is not in 01–28"},
		{"no leap day in 1900", bill, segment.GroupedID{Period: "19000229", Value: 1}, codec.ErrInvalidPeriod, "day 29 is not in 01–28"},
		{"month 13", bill, segment.GroupedID{Period: "20261301", Value: 1}, codec.ErrInvalidPeriod, "month 13 is not in 01–12"},
		{"month 0", month, segment.GroupedID{Period: "202600", Value: 1}, codec.ErrInvalidPeriod, "month 00"},
		{"dashes", bill, segment.GroupedID{Period: "2026-10-27", Value: 1}, codec.ErrInvalidPeriod, "byte 4: found '-'"},
		{"a day key for a month codec", month, segment.GroupedID{Period: "20261027", Value: 1}, codec.ErrInvalidPeriod, `not a YEAR_MONTH key like "202610"`},
		{"negative value", bill, segment.GroupedID{Period: "20261027", Value: -1}, codec.ErrRange, "negative"},
		{"value over the width", bill, segment.GroupedID{Period: "20261027", Value: 1_000_000}, codec.ErrRange, "the largest is 999999"},
		{"yy before 2000", yy, segment.GroupedID{Period: "19991231", Value: 1}, codec.ErrRange, "the year 1999 is outside 2000–2099"},
		{"yy after 2099", yy, segment.GroupedID{Period: "21000101", Value: 1}, codec.ErrRange, "outside 2000–2099"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.Encode(tc.id)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("Encode(%v) = %q, %v; want %v saying %q", tc.id, got, err, tc.is, tc.reason)
			}
		})
	}
}

func TestGrouped_DecodeRejectsTextEncodeCannotProduce(t *testing.T) {
	bill := billList
	biz := bizList
	dashed := []codec.Item{codec.DatePrefix("-", "yyyy-MM-dd"), codec.Radix(10, 6, true)}
	yy := []codec.Item{codec.DatePrefix("", "yyMMdd"), codec.ToString(4, true)}
	dayFirst := []codec.Item{codec.DatePrefix("/", "dd.MM.yyyy")}
	testRejects(t, func(items []codec.Item) codecOf[segment.GroupedID] {
		return mustNewGrouped(t, segment.YearMonthDay, items...)
	}, []rejectCase{
		{"empty", bill, "", 0, "text ends; want the year (yyyy) of the period pattern \"yyyyMMdd\""},
		{"only the year", bill, "2026", 4, "text ends; want the month (MM)"},
		{"day 32", bill, "20261032-000042", 6, "day 32 is not in 01–31, the days of 2026-10"},
		{"day 00", bill, "20261000-000042", 6, "day 00 is not in 01–31"},
		{"day 31 of a 30-day month", bill, "20261131-000042", 6, "day 31 is not in 01–30"},
		{"no leap day", bill, "20260229-000042", 6, "day 29 is not in 01–28"},
		{"month 13", bill, "20261327-000042", 4, "month 13 is not in 01–12"},
		{"month 00", bill, "20260027-000042", 4, "month 00"},
		{"letter in the period", bill, "2026IO27-000042", 4, "found 'I'; want a digit of the month (MM)"},
		{"short period", bill, "2026102-000042", 7, "found '-'; want a digit of the day (dd)"},
		{"no delimiter", bill, "20261027000042", 8, `found '0'; want the delimiter "-" after the period`},
		{"other delimiter", bill, "20261027_000042", 8, `found '_'; want the delimiter "-"`},
		{"no value", bill, "20261027-", 9, "want a value of radix-10 digits"},
		{"value short", bill, "20261027-00042", 14, "ends after 5 digits; pad-start wants exactly 6"},
		{"value long", bill, "20261027-0000042", 15, "past the 6 digits"},
		{"value with a sign", bill, "20261027--00042", 9, "found '-'"},
		{"period given twice", bill, "20261027-20261027-000042", 15, "past the 6 digits"},
		{"biz prefix cut short", biz, "BIZ20261027-00000042", 3, `want the prefix "BIZ-"`},
		{"biz without prefix", biz, "20261027-00000042", 0, `found '2'; want the prefix "BIZ-"`},
		{"biz delimiter", biz, "BIZ-20261027_00000042", 12, `want the delimiter "-" after the period`},
		{"biz value short", biz, "BIZ-20261027-0000042", 20, "ends after 7 digits"},
		{"biz bad day", biz, "BIZ-20260431-00000042", 10, "day 31 is not in 01–30"},
		{"pattern separator", dashed, "2026/10/27-000042", 4, `found '/'; want "-" of the period pattern "yyyy-MM-dd"`},
		{"pattern given the key", dashed, "20261027-000042", 4, `found '1'; want "-" of the period pattern`},
		{"yy bad month", yy, "2613270042", 2, "month 13"},
		{"yy short", yy, "26102", 5, "text ends; want the day"},
		{"day first, bad day", dayFirst, "30.02.2028/1", 0, "day 30 is not in 01–29, the days of 2028-02"},
		{"day first, bad month", dayFirst, "30.13.2028/1", 3, "month 13"},
	})
}

func TestGrouped_DecodeOfYYGivesTheCentury2000(t *testing.T) {
	c := mustNewGrouped(t, segment.YearMonthDay, codec.DatePrefix("-", "yyMMdd"))
	for text, want := range map[string]string{"000101-1": "20000101", "991231-1": "20991231", "000229-1": "20000229"} {
		if id, err := c.Decode(text); err != nil || id.Period != want {
			t.Errorf("Decode(%q) = %v, %v; want period %s", text, id, err, want)
		}
	}
}

func TestGrouped_NewRejectsInvalidItems(t *testing.T) {
	ymd := segment.YearMonthDay
	tests := []struct {
		name   string
		period segment.Period
		items  []codec.Item
		index  int
		item   string
		field  string
		reason string
	}{
		{"date-prefix not first", ymd, []codec.Item{codec.Prefix("BIZ-"), codec.DatePrefix("-", "")}, 1, "date-prefix", "", "a date-prefix can only be the first item (use a period item to place the period after a prefix)"},
		{"two period items", ymd, []codec.Item{codec.DatePrefix("-", ""), codec.Period("-")}, 1, "period", "", "second period item after the one at index 0; want at most one date-prefix or period"},
		{"period after the value", ymd, []codec.Item{codec.ToString(8, true), codec.Period("-")}, 1, "period", "", "comes after the value item at index 0"},
		{"period after a suffix", ymd, []codec.Item{codec.Suffix("X"), codec.Period("-")}, 1, "period", "", "comes after the suffix at index 0"},
		{"delimiter not UTF-8", ymd, []codec.Item{codec.DatePrefix("\xc3", "")}, 0, "date-prefix", "delimiter", "not valid UTF-8"},
		{"pattern without day", ymd, []codec.Item{codec.DatePrefix("-", "yyyy-MM")}, 0, "date-prefix", "pattern", `"yyyy-MM" has no dd; a YEAR_MONTH_DAY period wants yyyy or yy, MM and dd`},
		{"pattern without month", ymd, []codec.Item{codec.DatePrefix("-", "yyyydd")}, 0, "date-prefix", "pattern", "has no MM"},
		{"pattern without year", ymd, []codec.Item{codec.DatePrefix("-", "MMdd")}, 0, "date-prefix", "pattern", "has no year"},
		{"pattern with day for a month", segment.YearMonth, []codec.Item{codec.DatePrefix("-", "yyyyMMdd")}, 0, "date-prefix", "pattern", "has dd, but a YEAR_MONTH period has no day; want yyyy or yy, and MM"},
		{"pattern with month for a year", segment.Year, []codec.Item{codec.DatePrefix("-", "yyyy-MM")}, 0, "date-prefix", "pattern", "has MM, but a YEAR period has no month; want yyyy or yy"},
		{"pattern with single M", ymd, []codec.Item{codec.DatePrefix("-", "yyyy-M-dd")}, 0, "date-prefix", "pattern", `has "M" at byte 5; want yyyy or yy (year), MM (month) and dd (day), and no other letters`},
		{"pattern with yyy", ymd, []codec.Item{codec.DatePrefix("-", "yyyMMdd")}, 0, "date-prefix", "pattern", `has "yyy" at byte 0`},
		{"pattern with six y", ymd, []codec.Item{codec.DatePrefix("-", "yyyyyyMMdd")}, 0, "date-prefix", "pattern", `has "yyyyyy"`},
		{"pattern with hours", ymd, []codec.Item{codec.DatePrefix("-", "yyyyMMddHH")}, 0, "date-prefix", "pattern", `has "HH" at byte 8`},
		{"pattern with lower-case mm", ymd, []codec.Item{codec.DatePrefix("-", "yyyymmdd")}, 0, "date-prefix", "pattern", `has "mm"`},
		{"pattern with two years", ymd, []codec.Item{codec.DatePrefix("-", "yyyy-yy-MM-dd")}, 0, "date-prefix", "pattern", "second year at byte 5"},
		{"pattern with two months", ymd, []codec.Item{codec.DatePrefix("-", "MMyyyyMMdd")}, 0, "date-prefix", "pattern", "second month at byte 6"},
		{"pattern with a quote", ymd, []codec.Item{codec.DatePrefix("-", "yyyy'T'MMdd")}, 0, "date-prefix", "pattern", "quote at byte 4; quoted text is not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := codec.NewGrouped(tc.period, tc.items...)
			if c != nil {
				t.Errorf("NewGrouped returned a codec with its error")
			}
			wantItemError(t, err, tc.index, tc.item, tc.field, tc.reason)
		})
	}
}

func TestGrouped_NewRejectsInvalidPeriod(t *testing.T) {
	for _, p := range []segment.Period{0, segment.YearMonthDay + 1, -1} {
		c, err := codec.NewGrouped(p, billList...)
		var ie *codec.ItemError
		if c != nil || !errors.Is(err, codec.ErrInvalidCodec) || errors.As(err, &ie) || !strings.Contains(err.Error(), "want segment.Year, segment.YearMonth or segment.YearMonthDay") {
			t.Errorf("NewGrouped(%v) = %v, %v; want ErrInvalidCodec naming the periods", p, c, err)
		}
	}
}
