package server

import (
	"testing"
	"time"
)

func TestParseJavaDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"PT30S", 30 * time.Second},
		{"PT0.5S", 500 * time.Millisecond},
		{"PT5M", 5 * time.Minute},
		{"PT1H30M", 90 * time.Minute},
		{"P1DT2H", 26 * time.Hour},
		{"PT0.001S", time.Millisecond},
		{"PT0.0001S", time.Millisecond}, // rounded up to the stores' whole milliseconds
		{"PT2562047788015215H30M7.807S", Forever},
		{"PT9999999999999999999H", Forever},
	}
	for _, tt := range tests {
		got, err := parseJavaDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseJavaDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "P", "PT", "30S", "PT-5S", "PT0S", "PTS", "PT1.5M", "P1H", "PT1D", "PT1e3S", "PTNaNS", "PT1S2", "PTT1S", "PT0x10S", "PT5M-6M", "PT10M-6M", "PT1S1M"} {
		if d, err := parseJavaDuration(in); err == nil {
			t.Errorf("parseJavaDuration(%q) = %v, want an error", in, d)
		}
	}
}

func FuzzParseJavaDuration(f *testing.F) {
	for _, s := range []string{"PT30S", "PT0.5S", "PT2562047788015215H30M7.807S", "P1DT2H3M4.5S", "PT-1S", "PT1e9S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseJavaDuration(s)
		if err == nil && (d < time.Millisecond || d > Forever) {
			t.Errorf("parseJavaDuration(%q) = %v, outside [1ms, Forever]", s, d)
		}
	})
}
