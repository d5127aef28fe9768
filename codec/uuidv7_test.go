package codec_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/snowflake"
)

// uuidOf composes the id of layout l at t, machine m and sequence s, and returns
// it with its UUID text as RFC 9562's fields give it: 48 bits of Unix ms, version
// 7, rand_a 0, variant 10, and the machine and sequence in the low bits of rand_b.
func uuidOf(t *testing.T, l snowflake.Layout, at time.Time, m, s int) (int64, string) {
	t.Helper()
	id, err := l.Compose(snowflake.State{Time: at, Machine: m, Sequence: s})
	if err != nil {
		t.Fatal(err)
	}
	ms := uint64(at.UnixMilli())
	low := uint64(m)<<l.SequenceBits | uint64(s)
	return id, fmt.Sprintf("%08x-%04x-7000-%04x-%012x", ms>>16, ms&0xffff, 0x8000|low>>48, low&(1<<48-1))
}

// TestUUIDv7_RFC9562Fields checks the text of ids against the fields of RFC 9562:
// the time in Unix ms, the version, the variant, and the machine and sequence.
func TestUUIDv7_RFC9562Fields(t *testing.T) {
	def := snowflake.DefaultLayout()
	small := snowflake.Layout{Epoch: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimestampBits: 41, MachineBits: 8, SequenceBits: 10}
	at := time.Date(2026, 10, 27, 1, 30, 15, 123_000_000, time.UTC)
	for _, tc := range []struct {
		name   string
		l      snowflake.Layout
		at     time.Time
		m, s   int
		golden string // "" where only the fields are checked
	}{
		{"Default", def, at, 7, 42, "01a17afa-bcd3-7000-8000-00000000702a"},
		{"Epoch", def, def.Epoch, 0, 0, "016f38a2-f000-7000-8000-000000000000"},
		{"LargestMachineAndSequence", def, at, 1023, 4095, "01a17afa-bcd3-7000-8000-0000003fffff"},
		{"OtherLayout", small, at, 255, 1023, ""},
		{"LastTime", def, def.Epoch.Add(time.Duration(1<<41-1) * time.Millisecond), 1, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, codec.UUIDv7(tc.l))
			id, want := uuidOf(t, tc.l, tc.at, tc.m, tc.s)
			if tc.golden != "" && want != tc.golden {
				t.Fatalf("the fields give %s, the golden text is %s", want, tc.golden)
			}
			if got := encodeDecode(t, c, id); got != want {
				t.Errorf("Encode(%d) = %s, want %s", id, got, want)
			}
		})
	}
}

// TestUUIDv7_SortsInIssueOrder checks that the texts of a generator's ids sort as
// the ids do: by time, then machine, then sequence.
func TestUUIDv7_SortsInIssueOrder(t *testing.T) {
	l := snowflake.DefaultLayout()
	c := mustNew(t, codec.UUIDv7(l))
	start := time.Date(2026, 10, 27, 0, 0, 0, 0, time.UTC)
	var ids []int64
	for ms := range 3 {
		for _, m := range []int{0, 1, 1023} {
			for _, s := range []int{0, 1, 15, 16, 255, 256, 4095} {
				id, _ := uuidOf(t, l, start.Add(time.Duration(ms)*time.Millisecond+time.Duration(ms)*time.Hour*9000), m, s)
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = encodeDecode(t, c, id)
	}
	if !slices.IsSorted(texts) {
		t.Errorf("the texts of ascending ids are not ascending: %v", texts)
	}
}

// TestUUIDv7_DecodeRefusesWhatItDidNotWrite checks that Decode refuses every UUID
// that is not one of the generator's, at the byte at fault and saying why.
func TestUUIDv7_DecodeRefusesWhatItDidNotWrite(t *testing.T) {
	def := []codec.Item{codec.UUIDv7(snowflake.DefaultLayout())}
	small := []codec.Item{codec.UUIDv7(snowflake.Layout{Epoch: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimestampBits: 41, MachineBits: 8, SequenceBits: 10})}
	testRejects(t, func(items []codec.Item) codecOf[int64] { return mustNew(t, items...) }, []rejectCase{
		{"uppercase", def, "01A17AFA-BCD3-7000-8000-00000000702a", 2, "found 'A'; want a lowercase hex digit"},
		{"version 4", def, "01a17afa-bcd3-4000-8000-00000000702a", 14, "version 4; want 7"},
		{"variant 11", def, "01a17afa-bcd3-7000-c000-00000000702a", 19, "variant bits 11; want 10"},
		{"variant 0", def, "01a17afa-bcd3-7000-0000-00000000702a", 19, "variant bits 00; want 10"},
		{"a random UUIDv7's rand_a", def, "01a17afa-bcd3-7cc3-8000-00000000702a", 15, "rand_a is cc3; want 000"},
		{"a random UUIDv7's rand_b", def, "01a17afa-bcd3-7000-9a2b-c4d5e6f7a8b9", 19, "bits above the machine and sequence (the low 22) are set"},
		{"bits of another layout", small, "01a17afa-bcd3-7000-8000-00000007ffff", 19, "(the low 18) are set"},
		{"before the epoch", def, "00000000-0001-7000-8000-000000000000", 0, "is before the generator's epoch 2019-12-24T16:00:00Z"},
		{"before another epoch", small, "019a2353-3693-7000-8000-000000000000", 0, "is before the generator's epoch 2026-01-01T00:00:00Z"},
		{"past the last time", def, "ffffffff-ffff-7000-8000-000000000000", 0, "is past the generator's last time"},
		{"short", def, "01a17afa-bcd3-7000-8000-00000000702", 35, "text ends; want 36 characters"},
		{"long", def, "01a17afa-bcd3-7000-8000-00000000702a0", 36, "found '0' after the UUID"},
		{"no dashes", def, "019a2353369370008000000000000702a", 8, "found '3'; want - at byte 8"},
		{"braces", def, "{01a17afa-bcd3-7000-8000-00000000702a}", 0, "found '{'; want a hex digit"},
		{"urn", def, "urn:uuid:01a17afa-bcd3-7000-8000-00000000702a", 0, "found 'u'"},
		{"not UTF-8", def, "01a17afa-bcd3-7000-8000-00000000702\xff", 35, "byte 0xFF"},
		{"empty", def, "", 0, "text ends"},
	})
}

// TestUUIDv7_RefusedLayoutsAndLists checks that New refuses a uuidv7 item whose
// layout a UUIDv7 cannot hold, and one that does not stand alone, saying why.
func TestUUIDv7_RefusedLayoutsAndLists(t *testing.T) {
	def := snowflake.DefaultLayout()
	seconds := snowflake.JavaScriptLayout()
	before1970 := def
	before1970.Epoch = time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)
	wide := def
	wide.TimestampBits, wide.MachineBits, wide.SequenceBits = 48, 5, 10
	for _, tc := range []struct {
		name   string
		items  []codec.Item
		index  int
		item   string
		reason string
	}{
		{"unit 1s", []codec.Item{codec.UUIDv7(seconds)}, 0, "uuidv7", "needs a layout whose unit is 1ms, the unit of a UUIDv7's time; this layout's is 1s"},
		{"epoch before 1970", []codec.Item{codec.UUIDv7(before1970)}, 0, "uuidv7", "needs an epoch no earlier than 1970-01-01"},
		{"times past 2^48 ms", []codec.Item{codec.UUIDv7(wide)}, 0, "uuidv7", "end before 10889-08-02 (2^48 ms, the most a UUIDv7 holds); 48 timestamp bits from 2019-12-24 end at"},
		{"invalid layout", []codec.Item{codec.UUIDv7(snowflake.Layout{})}, 0, "uuidv7", "has an invalid layout"},
		{"after a prefix", []codec.Item{codec.Prefix("ord_"), codec.UUIDv7(def)}, 1, "uuidv7", "is item 1; a uuidv7 stands alone"},
		{"before a suffix", []codec.Item{codec.UUIDv7(def), codec.Suffix("!")}, 1, "suffix", "comes after the uuidv7 at index 0, which stands alone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := codec.New(tc.items...)
			wantItemError(t, err, tc.index, tc.item, "", tc.reason)
		})
	}
	_, err := codec.NewGrouped(2, codec.UUIDv7(def))
	wantItemError(t, err, 0, "uuidv7", "", "a grouped codec's ids (a periodic segment's) are not")
}

// TestUUIDv7_EncodeRefusesWhatIsNoID checks that Encode refuses a negative value
// and one with bits above its layout's, rather than write a UUID that decodes to
// another id.
func TestUUIDv7_EncodeRefusesWhatIsNoID(t *testing.T) {
	small := snowflake.Layout{Epoch: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimestampBits: 41, MachineBits: 8, SequenceBits: 10}
	c := mustNew(t, codec.UUIDv7(small))
	for _, v := range []int64{-1, math.MinInt64, 1 << 59, math.MaxInt64} {
		if text, err := c.Encode(v); err == nil || !strings.Contains(err.Error(), "value out of range") {
			t.Errorf("Encode(%d) = %q, %v; want an ErrRange", v, text, err)
		}
	}
	encodeDecode(t, c, 1<<59-1)
}

// A Snowflake id of a 1ms layout written as a version-7 UUID: the text sorts as the
// ids do, and decodes back to the id.
func ExampleUUIDv7() {
	l := snowflake.DefaultLayout()
	c, err := codec.New(codec.UUIDv7(l))
	if err != nil {
		panic(err)
	}
	id, _ := l.Compose(snowflake.State{Time: time.Date(2026, 10, 27, 1, 30, 15, 123e6, time.UTC), Machine: 7, Sequence: 42})
	text, _ := c.Encode(id)
	back, _ := c.Decode(text)
	fmt.Println(text, back == id)
	// Output: 01a17afa-bcd3-7000-8000-00000000702a true
}
