package codec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/snowflake"
)

func TestFriendly_EncodesState(t *testing.T) {
	l := snowflake.DefaultLayout()
	cst := time.FixedZone("CST", 8*3600)
	at := time.Date(2026, 10, 27, 9, 30, 15, 123*int(time.Millisecond), cst)
	id, err := l.Compose(snowflake.State{Time: at, Machine: 7, Sequence: 42})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		loc  *time.Location
		want string
	}{
		{cst, "20261027093015123-7-42"},
		{time.UTC, "20261027013015123-7-42"},
	}
	for _, tc := range tests {
		c := mustNew(t, codec.Friendly(l, tc.loc))
		text, err := c.Encode(id)
		if err != nil || text != tc.want {
			t.Errorf("%v: Encode(%d) = %q, %v; want %q", tc.loc, id, text, err, tc.want)
		}
		if v, err := c.Decode(tc.want); err != nil || v != id {
			t.Errorf("%v: Decode(%q) = %d, %v; want %d", tc.loc, tc.want, v, err, id)
		}
	}
}

func TestFriendly_DecodeRejects(t *testing.T) {
	def := mustNew(t, codec.Friendly(snowflake.DefaultLayout(), time.UTC))
	js := mustNew(t, codec.Friendly(snowflake.JavaScriptLayout(), time.UTC))
	tests := []struct {
		name   string
		c      codec.Codec
		text   string
		offset int
		reason string
	}{
		{"Empty", def, "", 0, "text ends in the time"},
		{"ShortTime", def, "2026102709301512-7-42", 0, "want a digit"},
		{"LetterInTime", def, "2026102709301512x-7-42", 16, "want a digit of the time"},
		{"NoSuchDay", def, "20261032093015123-7-42", 0, "is not a time"},
		{"NoMachine", def, "20261027093015123", 17, "want - and the machine"},
		{"EmptyMachine", def, "20261027093015123--42", 18, "want the machine"},
		{"LeadingZeroMachine", def, "20261027093015123-07-42", 18, "leading zero in the machine"},
		{"MachineTooBig", def, "20261027093015123-1024-42", 0, "machine 1024, want 0–1023"},
		{"SequenceTooBig", def, "20261027093015123-7-4096", 0, "sequence 4096, want 0–4095"},
		{"Trailing", def, "20261027093015123-7-42x", 22, "want the end"},
		{"BeforeEpoch", def, "20101027093015123-7-42", 0, "before the epoch"},
		{"NotAWholeUnit", js, "20261027093015123-7-42", 0, "not a whole Unit"},
		{"HugeSequence", def, "20261027093015123-7-99999999999999999999", 0, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.c.Decode(tc.text)
			var se *codec.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Decode(%q) = %d, %v; want a *SyntaxError", tc.text, v, err)
			}
			if !strings.Contains(se.Reason, tc.reason) || (tc.offset > 0 && se.Offset != tc.offset) {
				t.Errorf("Decode(%q): byte %d: %s; want byte %d: …%s…", tc.text, se.Offset, se.Reason, tc.offset, tc.reason)
			}
		})
	}
}

func TestFriendly_EncodeRefusesIdsOutsideLayout(t *testing.T) {
	js := mustNew(t, codec.Friendly(snowflake.JavaScriptLayout(), time.UTC))
	for _, v := range []int64{-1, 1 << 53} {
		if text, err := js.Encode(v); !errors.Is(err, codec.ErrRange) {
			t.Errorf("Encode(%d) = %q, %v; want ErrRange", v, text, err)
		}
	}
}

// berlin is a zone that changes its offset twice a year.
var berlin = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return loc
}()

// TestFriendly_NoTwoIDsShareATextInAZoneThatChangesItsOffset shows why such a zone is
// refused: the ids of 00:30 and 01:30 UTC on 2026-10-25, of one machine and sequence,
// are both 02:30 in Berlin, which turns its clocks back at 01:00 UTC. A friendly
// text of them would be one text for two ids.
func TestFriendly_NoTwoIDsShareATextInAZoneThatChangesItsOffset(t *testing.T) {
	a := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC).In(berlin).Format("20060102150405")
	b := time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC).In(berlin).Format("20060102150405")
	if a != b {
		t.Fatalf("Berlin's local times of two instants an hour apart: %s, %s; want the same, the case refused", a, b)
	}
	_, err := codec.New(codec.Friendly(snowflake.DefaultLayout(), berlin))
	if !errors.Is(err, codec.ErrInvalidCodec) || !strings.Contains(err.Error(), "changes its offset") {
		t.Errorf("New(Friendly in Europe/Berlin) = %v; want it refused: one text could stand for two ids", err)
	}
}

func TestFriendly_Build(t *testing.T) {
	bad := []struct {
		name  string
		items []codec.Item
		field string
	}{
		{"NilZone", []codec.Item{codec.Friendly(snowflake.DefaultLayout(), nil)}, "zone"},
		{"BadLayout", []codec.Item{codec.Friendly(snowflake.Layout{}, time.UTC)}, ""},
		{"TwoValues", []codec.Item{codec.Radix(62, 0, false), codec.Friendly(snowflake.DefaultLayout(), time.UTC)}, ""},
		{"ZoneThatChangesItsOffset", []codec.Item{codec.Friendly(snowflake.DefaultLayout(), berlin)}, "zone"},
	}
	for _, tc := range bad {
		_, err := codec.New(tc.items...)
		var ie *codec.ItemError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("%s: New = %v; want an *ItemError on field %q", tc.name, err, tc.field)
		}
	}
}

func ExampleFriendly() {
	l := snowflake.DefaultLayout()
	c, err := codec.New(codec.Friendly(l, time.UTC))
	if err != nil {
		panic(err)
	}
	id, _ := l.Compose(snowflake.State{Time: time.Date(2026, 10, 27, 9, 30, 15, 123e6, time.UTC), Machine: 7, Sequence: 42})
	text, _ := c.Encode(id)
	back, _ := c.Decode(text)
	fmt.Println(text, back == id)
	// Output: 20261027093015123-7-42 true
}
