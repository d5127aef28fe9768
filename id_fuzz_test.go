package cosid_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/cosid-go/cosid"
)

// idSeeds are texts near those an ID's readers meet; the corpus under
// testdata/fuzz holds more.
var idSeeds = []string{
	"0", "42", "-1", "007", "-0", "+1", " 1", "1 ", "4.2", "4e2", "0x10", "", "-",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"99999999999999999999", "4é", "null", "true", "{}", `"42"`, `""`, `"-"`, `"\u0034"`,
}

// canonical reports whether text is an int64's decimal as strconv.FormatInt
// writes it: what an ID's readers accept.
func canonical(text []byte) (int64, bool) {
	v, err := strconv.ParseInt(string(text), 10, 64)
	return v, err == nil && strconv.FormatInt(v, 10) == string(text)
}

// FuzzID_UnmarshalText checks that UnmarshalText accepts exactly the decimals
// that MarshalText writes, and Scan of the same text as []byte and string alike.
func FuzzID_UnmarshalText(f *testing.F) {
	for _, s := range idSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		want, ok := canonical(text)
		for name, read := range map[string]func(*cosid.ID) error{
			"UnmarshalText": func(id *cosid.ID) error { return id.UnmarshalText(text) },
			"Scan([]byte)":  func(id *cosid.ID) error { return id.Scan(text) },
			"Scan(string)":  func(id *cosid.ID) error { return id.Scan(string(text)) },
		} {
			id := cosid.ID(5)
			err := read(&id)
			switch {
			case ok && (err != nil || int64(id) != want):
				t.Fatalf("%s(%q) = %d, %v; want %d", name, text, id, err, want)
			case !ok && (err == nil || id != 5):
				t.Fatalf("%s(%q) = %d, %v; want an error and the ID unchanged", name, text, id, err)
			}
		}
	})
}

// FuzzID_UnmarshalJSON checks that UnmarshalJSON accepts a JSON string or number
// holding a decimal MarshalText writes, and null, and nothing else; whatever it
// reads, MarshalJSON writes back as that decimal in a string.
func FuzzID_UnmarshalJSON(f *testing.F) {
	for _, s := range idSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id := cosid.ID(5)
		err := id.UnmarshalJSON(data)
		inner := data
		if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' {
			inner = data[1 : len(data)-1]
		}
		want, ok := canonical(inner)
		switch {
		case string(data) == "null":
			if err != nil || id != 5 {
				t.Fatalf("UnmarshalJSON(null) = %d, %v; want the ID unchanged", id, err)
			}
			return
		case !ok:
			if err == nil || id != 5 {
				t.Fatalf("UnmarshalJSON(%q) = %d, %v; want an error and the ID unchanged", data, id, err)
			}
			return
		case err != nil || int64(id) != want:
			t.Fatalf("UnmarshalJSON(%q) = %d, %v; want %d", data, id, err, want)
		}
		out, err := id.MarshalJSON()
		if err != nil || !bytes.Equal(out, []byte(`"`+string(inner)+`"`)) {
			t.Fatalf("MarshalJSON of UnmarshalJSON(%q) = %s, %v", data, out, err)
		}
	})
}
