package codec_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
)

// plainLists are codec lists of every kind, with the largest value each holds.
var plainLists = []struct {
	name  string
	items []codec.Item
	max   int64
}{
	{"decimal", nil, math.MaxInt64},
	{"radix 2", []codec.Item{codec.Radix(2, 0, false)}, math.MaxInt64},
	{"radix 7 padded", []codec.Item{codec.Radix(7, 0, true)}, math.MaxInt64},
	{"radix 16 width 5", []codec.Item{codec.Radix(16, 5, false)}, 0xFFFFF},
	{"radix 36 padded width 8", []codec.Item{codec.Radix(36, 8, true)}, 2821109907455},
	{"radix 62", []codec.Item{codec.Radix(62, 0, false)}, math.MaxInt64},
	{"radix 62 padded", []codec.Item{codec.Radix(62, 0, true)}, math.MaxInt64},
	{"to-string padded width 6", []codec.Item{codec.ToString(6, true)}, 999999},
	{"to-string padded width 19", []codec.Item{codec.ToString(19, true)}, math.MaxInt64},
	{"prefix and suffixes", []codec.Item{codec.Prefix("BIZ-"), codec.ToString(8, true), codec.Suffix("-"), codec.Suffix("0")}, 99999999},
	{"digit prefix and suffix", []codec.Item{codec.Prefix("1"), codec.Radix(10, 0, false), codec.Suffix("0")}, math.MaxInt64},
	{"friendly", []codec.Item{codec.Friendly(snowflake.DefaultLayout(), time.UTC)}, math.MaxInt64},
	{"friendly javascript in UTC+8 with prefix", []codec.Item{codec.Prefix("E"),
		codec.Friendly(snowflake.JavaScriptLayout(), time.FixedZone("UTC+8", 8*3600))}, 1<<53 - 1},
	{"uuidv7", []codec.Item{codec.UUIDv7(snowflake.DefaultLayout())}, math.MaxInt64},
	{"uuidv7 41/8/10 from 2026", []codec.Item{codec.UUIDv7(snowflake.Layout{Epoch: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Unit: time.Millisecond, TimestampBits: 41, MachineBits: 8, SequenceBits: 10})}, 1<<59 - 1},
}

// groupedLists are grouped codec lists of every kind, with the largest value each
// holds and the years its pattern can write.
var groupedLists = []struct {
	name             string
	period           segment.Period
	items            []codec.Item
	max              int64
	minYear, maxYear int
}{
	{"seed bill", segment.YearMonthDay, billList, 999999, 0, 9999},
	{"biz", segment.YearMonthDay, bizList, 99999999, 0, 9999},
	{"year", segment.Year, []codec.Item{codec.DatePrefix("", "")}, math.MaxInt64, 0, 9999},
	{"month after a prefix", segment.YearMonth, []codec.Item{codec.Prefix("M"), codec.Period("."), codec.Radix(62, 3, true)}, 238327, 0, 9999},
	{"day first", segment.YearMonthDay, []codec.Item{codec.DatePrefix("/", "dd.MM.yyyy"), codec.Radix(36, 0, false), codec.Suffix("!")}, math.MaxInt64, 0, 9999},
	{"yy", segment.YearMonthDay, []codec.Item{codec.DatePrefix("", "yyMMdd"), codec.ToString(4, true)}, 9999, 2000, 2099},
	{"UTF-8", segment.YearMonthDay, []codec.Item{codec.DatePrefix("第", "yyyy年MM月dd日"), codec.Suffix("号")}, math.MaxInt64, 0, 9999},
}

// randomValue returns a value in [0, max] whose size is spread evenly over bit
// lengths, so short and long texts are both common.
func randomValue(r *rand.Rand, max int64) int64 {
	v := r.Int64() >> r.IntN(63)
	if v > max {
		v %= max + 1
	}
	return v
}

func TestRoundTrip_RandomValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range plainLists {
		c := mustNew(t, tc.items...)
		for i := range 2000 {
			v := randomValue(r, tc.max)
			switch i {
			case 0:
				v = 0
			case 1:
				v = tc.max
			}
			encodeDecode(t, c, v)
		}
	}
}

func TestRoundTrip_RandomGroupedIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range groupedLists {
		c := mustNewGrouped(t, tc.period, tc.items...)
		for range 2000 {
			// Period.Key writes the key, so the codec is checked against package time.
			day := time.Date(tc.minYear, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(365*(tc.maxYear-tc.minYear+1)))
			id := segment.GroupedID{Period: tc.period.Key(day), Value: randomValue(r, tc.max)}
			encodeDecode(t, c, id)
		}
	}
}

func TestGrouped_AcceptsEveryDayThatPeriodKeyWrites(t *testing.T) {
	c := mustNewGrouped(t, segment.YearMonthDay, billList...)
	// Four years hold every kind of February; 1900 and 2000 are the century rules.
	for _, from := range []int{1899, 1999, 2024} {
		end := time.Date(from+5, 1, 1, 0, 0, 0, 0, time.UTC)
		for day := time.Date(from, 1, 1, 0, 0, 0, 0, time.UTC); day.Before(end); day = day.AddDate(0, 0, 1) {
			encodeDecode(t, c, segment.GroupedID{Period: segment.YearMonthDay.Key(day), Value: 1})
		}
	}
}

func TestCodecs_SafeForConcurrentUse(t *testing.T) {
	plain := mustNew(t, codec.Prefix("BIZ-"), codec.Radix(62, 0, true))
	grouped := mustNewGrouped(t, segment.YearMonthDay, codec.DatePrefix("-", "yyyy-MM-dd"), codec.Radix(10, 6, true))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			// t.Fatal belongs to the test's goroutine, so these report with t.Errorf.
			for v := range int64(500) {
				v += int64(g) * 1000
				text, err := plain.Encode(v)
				if back, err2 := plain.Decode(text); err != nil || err2 != nil || back != v {
					t.Errorf("plain: %d → %q, %v → %d, %v", v, text, err, back, err2)
					return
				}
				id := segment.GroupedID{Period: "20261027", Value: v}
				text, err = grouped.Encode(id)
				if back, err2 := grouped.Decode(text); err != nil || err2 != nil || back != id {
					t.Errorf("grouped: %v → %q, %v → %v, %v", id, text, err, back, err2)
					return
				}
			}
		})
	}
	wg.Wait()
}
