package server

import (
	"strings"
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
		{"P1D", 24 * time.Hour},
		{"PT0.001S", time.Millisecond},
		{"PT1.500000000S", 1500 * time.Millisecond},
		{"PT2562047788015215H30M7.807S", Forever},
		{"PT9999999999999999999H", Forever},
		{"P106751991167300D", Forever},
	}
	for _, tt := range tests {
		got, err := parseJavaDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseJavaDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "P", "PT", "30S", "PT-5S", "PT0S", "PTS", "PT1.5M", "P1H", "PT1D", "PT1e3S", "PTNaNS", "PT1S2", "PTT1S", "PT0x10S", "PT5M-6M", "PT10M-6M", "PT1S1M", "-PT5S", "P1W", "P1Y"} {
		if d, err := parseJavaDuration(in); err == nil {
			t.Errorf("parseJavaDuration(%q) = %v, want an error", in, d)
		}
	}
}

// TestSecurity_L7_StrictJavaDuration checks the durations the review found accepted:
// a T without a time, a negative part, a sign, lower case, and a part of a
// millisecond (which made PT0.0000001S a 1 ms lease) are refused, each saying why.
func TestSecurity_L7_StrictJavaDuration(t *testing.T) {
	for _, tt := range []struct{ in, why string }{
		{"P1DT", "a T without a time"},
		{"PT1M-30S", "digits only"},
		{"PT+5S", "digits only"},
		{"p1dt2h", "upper case"},
		{"P1dT2h", "before T, only days"},
		{"PT0.0000001S", "a part of a millisecond"},
		{"PT0.0001S", "a part of a millisecond"},
		{"PT1.S", "1–9 digits after the point"},
		{"PT.5S", "digits only"},
		{"PT1.0000000001S", "1–9 digits after the point"},
		{"P-1D", "before T, only days"},
	} {
		d, err := parseJavaDuration(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("parseJavaDuration(%q) = %v, %v; want an error saying %q", tt.in, d, err, tt.why)
		}
	}
}

func FuzzParseJavaDuration(f *testing.F) {
	for _, s := range []string{"PT30S", "PT0.5S", "PT2562047788015215H30M7.807S", "P1DT2H3M4.5S", "PT-1S", "PT1e9S",
		"P1DT", "PT1M-30S", "PT+5S", "p1dt2h", "PT0.0000001S", "PT1.500000000S", "P106751991167300D"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseJavaDuration(s)
		if err != nil {
			return
		}
		if d < time.Millisecond || d > Forever || d%time.Millisecond != 0 {
			t.Errorf("parseJavaDuration(%q) = %v, outside [1ms, Forever] or not whole milliseconds", s, d)
		}
		if strings.ContainsAny(s, "+-eEpdhms_ ") || strings.HasSuffix(s, "T") {
			t.Errorf("parseJavaDuration(%q) = %v: a sign, an exponent, lower case or a bare T was accepted", s, d)
		}
	})
}
