package cosid_test

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestID_JSONIsAString checks that an ID's JSON is the string of its decimal, so
// that JavaScript keeps every digit, in a struct, a slice and a map's key.
func TestID_JSONIsAString(t *testing.T) {
	type order struct {
		ID    cosid.ID            `json:"id"`
		Lines []cosid.ID          `json:"lines"`
		By    map[cosid.ID]string `json:"by"`
	}
	v := order{ID: 920213737330208768, Lines: []cosid.ID{0, -1, math.MaxInt64}, By: map[cosid.ID]string{42: "x"}}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"920213737330208768","lines":["0","-1","9223372036854775807"],"by":{"42":"x"}}`
	if string(got) != want {
		t.Fatalf("json.Marshal = %s\nwant %s", got, want)
	}
	var back order
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != v.ID || len(back.Lines) != 3 || back.Lines[2] != math.MaxInt64 || back.By[42] != "x" {
		t.Errorf("round trip = %+v, want %+v", back, v)
	}
}

// TestID_UnmarshalJSON checks what UnmarshalJSON accepts (the string MarshalJSON
// writes, an integer number, null) and that every other input is refused with an
// error that says why, leaving the ID as it was.
func TestID_UnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       cosid.ID
		errHas     string // "" for no error
	}{
		{"String", `"920213737330208768"`, 920213737330208768, ""},
		{"Number", `42`, 42, ""},
		{"NegativeString", `"-7"`, -7, ""},
		{"Max", `"9223372036854775807"`, math.MaxInt64, ""},
		{"Min", `-9223372036854775808`, math.MinInt64, ""},
		{"NullLeavesIt", `null`, 5, ""},
		{"EmptyString", `""`, 5, "empty"},
		{"LeadingZero", `"007"`, 5, "leading zero"},
		{"MinusZero", `"-0"`, 5, "zero is written 0"},
		{"Plus", `"+1"`, 5, `'+' at byte 0`},
		{"Space", `" 1"`, 5, `' ' at byte 0`},
		{"Fraction", `4.2`, 5, `'.' at byte 1`},
		{"Exponent", `4e2`, 5, `'e' at byte 1`},
		{"Overflow", `"9223372036854775808"`, 5, "out of the range"},
		{"Underflow", `"-9223372036854775809"`, 5, "out of the range"},
		{"Bool", `true`, 5, "not an id"},
		{"Object", `{}`, 5, "not an id"},
		{"NonASCII", `"4é"`, 5, "byte 0xC3 at byte 1"},
		{"JustMinus", `"-"`, 5, "no digits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := cosid.ID(5)
			err := id.UnmarshalJSON([]byte(tc.json))
			switch {
			case tc.errHas == "" && err != nil:
				t.Fatalf("UnmarshalJSON(%s): %v", tc.json, err)
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("UnmarshalJSON(%s) = %v, %v; want an error mentioning %q", tc.json, id, err, tc.errHas)
			}
			if id != tc.want {
				t.Errorf("UnmarshalJSON(%s): id %d, want %d", tc.json, id, tc.want)
			}
		})
	}
}

// TestID_TextAndString checks that String and MarshalText write the decimal and
// that UnmarshalText reads it back.
func TestID_TextAndString(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 42, 920213737330208768, math.MaxInt64, math.MinInt64} {
		id := cosid.ID(v)
		text, err := id.MarshalText()
		if err != nil || string(text) != strconv.FormatInt(v, 10) || id.String() != string(text) || id.Int64() != v {
			t.Errorf("ID(%d): MarshalText %q, %v; String %q", v, text, err, id.String())
		}
		var back cosid.ID
		if err := back.UnmarshalText(text); err != nil || back != id {
			t.Errorf("UnmarshalText(%q) = %d, %v", text, back, err)
		}
	}
	var id cosid.ID
	if err := id.UnmarshalText([]byte(`"42"`)); err == nil {
		t.Errorf("UnmarshalText accepted a quoted number: %d", id)
	}
}

// TestID_SQL checks Value and Scan: an int64 both ways, and the decimal text some
// drivers give; NULL and floats are refused, with what to do instead.
func TestID_SQL(t *testing.T) {
	v, err := cosid.ID(920213737330208768).Value()
	if err != nil || v != int64(920213737330208768) {
		t.Errorf("Value = %#v, %v; want the int64", v, err)
	}
	var _ driver.Valuer = cosid.ID(0)
	var _ sql.Scanner = new(cosid.ID)
	for _, tc := range []struct {
		name   string
		src    any
		want   cosid.ID
		errHas string
	}{
		{"Int64", int64(920213737330208768), 920213737330208768, ""},
		{"Bytes", []byte("920213737330208768"), 920213737330208768, ""},
		{"String", "42", 42, ""},
		{"ID", cosid.ID(8), 8, ""},
		{"PointerToID", func() *cosid.ID { v := cosid.ID(9); return &v }(), 9, ""},
		{"NilPointerToID", (*cosid.ID)(nil), 5, "nil *cosid.ID"},
		{"BadBytes", []byte("42x"), 5, `'x' at byte 2`},
		{"Null", nil, 5, "sql.Null[cosid.ID]"},
		{"Float", 4.0, 5, "float64"},
		{"Bool", true, 5, "bool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := cosid.ID(5)
			err := id.Scan(tc.src)
			switch {
			case tc.errHas == "" && err != nil:
				t.Fatalf("Scan(%#v): %v", tc.src, err)
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("Scan(%#v) = %d, %v; want an error mentioning %q", tc.src, id, err, tc.errHas)
			}
			if id != tc.want {
				t.Errorf("Scan(%#v): id %d, want %d", tc.src, id, tc.want)
			}
		})
	}
	var null sql.Null[cosid.ID]
	if err := null.Scan(nil); err != nil || null.Valid {
		t.Errorf("sql.Null[cosid.ID].Scan(nil) = %+v, %v; want not valid", null, err)
	}
	if err := null.Scan(int64(7)); err != nil || !null.Valid || null.V != 7 {
		t.Errorf("sql.Null[cosid.ID].Scan(7) = %+v, %v", null, err)
	}
}

// TestRuntime_FillIDFields checks that Fill fills an ID field as it fills an int64
// one, leaving a set one alone.
func TestRuntime_FillIDFields(t *testing.T) {
	rt := mustOpen(t, memConfig)
	var v struct {
		ID   cosid.ID `cosid:"order"`
		Kept cosid.ID `cosid:"order"`
		Raw  int64    `cosid:"order"`
	}
	v.Kept = 99
	if err := rt.Fill(t.Context(), &v); err != nil {
		t.Fatal(err)
	}
	if v.ID != 1 || v.Raw != 2 || v.Kept != 99 {
		t.Errorf("Fill = %+v; want ID 1, Raw 2 and Kept 99", v)
	}
	var bill struct {
		No cosid.ID `cosid:"bill"`
	}
	if err := rt.Fill(t.Context(), &bill); err == nil || !strings.Contains(err.Error(), "text only") {
		t.Errorf("Fill of an ID from a periodic segment: %v; want an error saying its ids are text only", err)
	}
}
