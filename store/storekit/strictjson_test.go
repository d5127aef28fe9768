package storekit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store/storekit"
)

type row struct {
	Owner string `json:"owner,omitempty"`
	Fence int64  `json:"fence"`
}

// TestDecodeStrict_RefusesWhatNoStoreWrites checks that one object of known fields decodes,
// and that unknown fields, a second value, trailing text or bad JSON are refused.
func TestDecodeStrict_RefusesWhatNoStoreWrites(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    row
		wantErr bool
	}{
		{"Object", `{"owner":"a","fence":2}`, row{"a", 2}, false},
		{"TrailingSpace", "{\"fence\":1}\n ", row{Fence: 1}, false},
		{"UnknownField", `{"fence":1,"colour":"red"}`, row{}, true},
		{"SecondObject", `{"fence":1}{"fence":2}`, row{}, true},
		{"TrailingText", `{"fence":1} x`, row{}, true},
		{"NotJSON", `fence=1`, row{}, true},
		{"Empty", ``, row{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got row
			err := storekit.DecodeStrict([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Decode(%q) = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("Decode(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

type nested struct {
	Lease row            `json:"lease"`
	Rows  []row          `json:"rows"`
	Tags  map[string]row `json:"tags"`
	Any   any            `json:"any"`
	embedded
}

type embedded struct {
	Extra int `json:"extra"`
}

// TestDecodeExact_L7_NamesMatchExactlyNoDuplicates checks that DecodeExact refuses a
// field name in another case and a key given twice, at every level, and says which.
func TestDecodeExact_L7_NamesMatchExactlyNoDuplicates(t *testing.T) {
	tests := []struct {
		name, in, mention string // mention: empty when the input decodes
	}{
		{"Exact", `{"lease":{"owner":"a","fence":1},"rows":[{"fence":2}],"tags":{"X":{"fence":3}},"any":{"k":1,"K":2},"extra":4}`, ""},
		{"OtherCase", `{"Lease":{"fence":1}}`, `did you mean "lease"`},
		{"NestedOtherCase", `{"lease":{"FENCE":1}}`, `lease: unknown field "FENCE"`},
		{"InSlice", `{"rows":[{"fence":1},{"Owner":"x"}]}`, `rows[1]`},
		{"InMapValue", `{"tags":{"a":{"fEnce":1}}}`, `tags.a`},
		{"Duplicate", `{"extra":1,"extra":2}`, `"extra" is given twice`},
		{"NestedDuplicate", `{"lease":{"fence":1,"fence":2}}`, `lease: the key "fence" is given twice`},
		{"DuplicateInAny", `{"any":{"k":1,"k":2}}`, "twice"},
		{"Unknown", `{"colour":1}`, `unknown field "colour"`},
		{"Deep", `{"any":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "deeper"},
		{"Trailing", `{"extra":1} {}`, "after"},
		{"NotJSON", `{"extra":`, "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got nested
			err := storekit.DecodeExact([]byte(tt.in), &got)
			if tt.mention == "" {
				if err != nil {
					t.Fatalf("DecodeExact(%s) = %v", tt.in, err)
				}
				if got.Lease.Fence != 1 || got.Extra != 4 || got.Tags["X"].Fence != 3 {
					t.Errorf("DecodeExact(%s) = %+v", tt.in, got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("DecodeExact(%s) = %v, want an error saying %q", tt.in, err, tt.mention)
			}
		})
	}
}

// FuzzDecodeExact checks that DecodeExact never panics, and that what it takes
// encoding/json takes too, into the same value.
func FuzzDecodeExact(f *testing.F) {
	for _, seed := range []string{`{"lease":{"owner":"a","fence":1}}`, `{"rows":[{"fence":2}]}`, `{"extra":1,"extra":2}`,
		`{"Lease":{}}`, `{"tags":{"a":{}}}`, `{"any":[[[1]]]}`, `[]`, `null`, `{"lease":null}`, `{"extra":"x"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var exact, plain nested
		if err := storekit.DecodeExact([]byte(in), &exact); err != nil {
			return
		}
		if err := json.Unmarshal([]byte(in), &plain); err != nil {
			t.Fatalf("DecodeExact took %q, json.Unmarshal refuses it: %v", in, err)
		}
		a, _ := json.Marshal(exact)
		b, _ := json.Marshal(plain)
		if string(a) != string(b) {
			t.Errorf("DecodeExact(%q) = %s, json.Unmarshal = %s", in, a, b)
		}
	})
}
