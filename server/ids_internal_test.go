package server

import (
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
