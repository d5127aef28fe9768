package strictjson_test

import (
	"testing"

	"github.com/cosid-go/cosid/internal/strictjson"
)

type row struct {
	Owner string `json:"owner,omitempty"`
	Fence int64  `json:"fence"`
}

// TestDecode_RefusesWhatNoStoreWrites checks that one object of known fields decodes,
// and that unknown fields, a second value, trailing text or bad JSON are refused.
func TestDecode_RefusesWhatNoStoreWrites(t *testing.T) {
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
			err := strictjson.Decode([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Decode(%q) = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("Decode(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}
