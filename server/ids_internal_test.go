package server

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/cosid-go/cosid/codec"
)

func TestIsDecimal(t *testing.T) {
	tests := []struct {
		name  string
		items []codec.Item
		want  bool
	}{
		{"default", nil, true},
		{"radix 10", []codec.Item{codec.Radix(10, 0, false)}, true},
		{"radix 10 padded", []codec.Item{codec.Radix(10, 6, true)}, false},
		{"radix 10 narrow", []codec.Item{codec.Radix(10, 12, false)}, false},
		{"radix 16", []codec.Item{codec.Radix(16, 0, false)}, false},
		{"radix 62", []codec.Item{codec.Radix(62, 0, false)}, false},
		{"prefix", []codec.Item{codec.Prefix("C-")}, false},
		{"suffix", []codec.Item{codec.Suffix("-x")}, false},
	}
	for _, tt := range tests {
		c, err := codec.New(tt.items...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := isDecimal(c); got != tt.want {
			t.Errorf("isDecimal(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestIDWriter_DecimalsAsFormatInt checks that counting the digits up writes what
// strconv.FormatInt writes, across carries, in text and in JSON.
func TestIDWriter_DecimalsAsFormatInt(t *testing.T) {
	tests := []struct {
		name       string
		start, end int64
	}{
		{"one", 1, 2},
		{"none", 5, 5},
		{"carry to two digits", 7, 12},
		{"carry to four digits", 995, 1003},
		{"carry in the middle", 1089, 1112},
		{"from zero", 0, 3},
		{"negative", -3, 2},
		{"up to the largest", math.MaxInt64 - 3, math.MaxInt64},
		{"nineteen nines", 999_999_999_999_999_998, 1_000_000_000_000_000_002},
	}
	for _, tt := range tests {
		for _, asJSON := range []bool{false, true} {
			want := idWriter{asJSON: asJSON}
			for v := tt.start; v < tt.end; v++ {
				want.text(strconv.FormatInt(v, 10))
			}
			got := idWriter{asJSON: asJSON}
			got.decimals(tt.start, tt.end)
			if string(got.buf) != string(want.buf) {
				t.Errorf("%s, JSON %v: decimals(%d, %d) = %q, want %q", tt.name, asJSON, tt.start, tt.end, got.buf, want.buf)
			}
		}
	}
}

// FuzzIDWriter_TextAsJSONMarshal checks that an id's text in a JSON answer is what
// json.Marshal makes of it.
func FuzzIDWriter_TextAsJSONMarshal(f *testing.F) {
	for _, seed := range []string{"C-000001", "", `a"b`, `a\b`, "<x>", "<", ">", "a&b", "\x00", "\x7f", "é", "\xff", "\u2028"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		w := idWriter{asJSON: true}
		w.text(text)
		if string(w.buf) != string(want) {
			t.Errorf("text(%q) in JSON = %s, want %s", text, w.buf, want)
		}
	})
}

// TestNext_AllocsPerRequest pins the allocations of a request of /next, none, so that
// one more fails here: count=1 is the hot path, and a batch costs no more.
func TestNext_AllocsPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers, which then allocate")
	}
	s := newServer(t, nil)
	tests := []struct {
		target string
		accept string
		max    float64
	}{
		{"/v1/generators/order/next", "", 0},
		{"/v1/generators/order/next?count=1000", "", 0},
		{"/v1/generators/order/next?count=1000", "application/json", 0},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("GET", tt.target, nil)
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		w := &discard{h: http.Header{}}
		s.ServeHTTP(w, req) // the pools' first buffer and recorder
		allocs := testing.AllocsPerRun(1000, func() {
			clear(w.h)
			s.ServeHTTP(w, req)
		})
		if allocs > tt.max {
			t.Errorf("GET %s (Accept %q): %v allocs a request, want at most %v", tt.target, tt.accept, allocs, tt.max)
		}
	}
}
