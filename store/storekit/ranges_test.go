package storekit_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

func TestCheckReserve_NamesTheBadArgument(t *testing.T) {
	tests := []struct {
		name         string
		key          string
		size, offset int64
		mention      string // "" for valid arguments
	}{
		{"Valid", "app/order", 1, 0, ""},
		{"Key255Bytes", strings.Repeat("k", 255), 1, 0, ""},
		{"UnicodeKey", "app/订单/2026", 100, 1, ""},
		{"EmptyKey", "", 1, 0, "key is empty"},
		{"Key256Bytes", strings.Repeat("k", 256), 1, 0, "256 bytes, over the limit of 255"},
		{"KeyNotUTF8", "app/\xc3", 1, 0, "not valid UTF-8"},
		{"KeyWithNUL", "app/\x00", 1, 0, "NUL byte"},
		{"SizeZero", "k", 0, 0, "size 0"},
		{"SizeNegative", "k", -1, 0, "size -1"},
		{"OffsetNegative", "k", 1, -7, "initialOffset -7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := storekit.CheckReserve(tc.key, tc.size, tc.offset)
			if tc.mention == "" {
				if err != nil {
					t.Fatalf("CheckReserve: %v", err)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("CheckReserve = %v, want ErrInvalidArgument saying %q", err, tc.mention)
			}
		})
	}
}
func TestFits_S5_NoWrapAround(t *testing.T) {
	tests := []struct {
		next, size int64
		want       bool
	}{
		{0, 1, true},
		{0, math.MaxInt64, true},
		{math.MaxInt64 - 1, 1, true},
		{math.MaxInt64, 1, false},
		{math.MaxInt64 - 5, 6, false},
		{1, math.MaxInt64, false},
		{-1, 1, false},
	}
	for _, tc := range tests {
		if got := storekit.Fits(tc.next, tc.size); got != tc.want {
			t.Errorf("Fits(%d, %d) = %v, want %v", tc.next, tc.size, got, tc.want)
		}
	}
}

// TestExhaustedAfter_WrapsErrExhaustedAndNamesBoth checks the refusal that stores
// share for a reservation past math.MaxInt64: errors.Is finds ErrExhausted, and the
// text names the size, the next value and the bound.
func TestExhaustedAfter_WrapsErrExhaustedAndNamesBoth(t *testing.T) {
	tests := []struct {
		name       string
		next, size int64
		want       string
	}{
		{"NearTheTop", math.MaxInt64 - 5, 6, "range exhausted: 6 more after 9223372036854775802 would pass 9223372036854775807"},
		{"AtTheTop", math.MaxInt64, 1, "range exhausted: 1 more after 9223372036854775807 would pass 9223372036854775807"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := storekit.ExhaustedAfter(tt.next, tt.size)
			if !errors.Is(err, store.ErrExhausted) {
				t.Errorf("ExhaustedAfter(%d, %d) = %v, want an error wrapping ErrExhausted", tt.next, tt.size, err)
			}
			if err.Error() != tt.want {
				t.Errorf("ExhaustedAfter(%d, %d) says %q, want %q", tt.next, tt.size, err, tt.want)
			}
		})
	}
}

// TestNextRange_S2S5S6 checks the range a Reserve takes from a key as last read: a
// new key starts at initialOffset (S2), a sealed one fails (S6), and one that would
// pass math.MaxInt64 fails with ErrExhausted, naming where it stood (S5).
func TestNextRange_S2S5S6(t *testing.T) {
	tests := []struct {
		name                string
		found, sealed       bool
		next, size, initial int64
		want                store.Range
		wantErr             error
	}{
		{"NewKeyAtInitialOffset", false, false, 0, 10, 100, store.Range{Start: 100, End: 110}, nil},
		{"NewKeyIgnoresNext", false, false, 7, 10, 0, store.Range{Start: 0, End: 10}, nil},
		{"FoundKeyAtNext", true, false, 50, 10, 100, store.Range{Start: 50, End: 60}, nil},
		{"UpToTheTop", true, false, math.MaxInt64 - 10, 10, 0, store.Range{Start: math.MaxInt64 - 10, End: math.MaxInt64}, nil},
		{"SealedFound", true, true, 50, 10, 0, store.Range{}, store.ErrSealed},
		{"SealedBeforeExhausted", true, true, math.MaxInt64, 1, 0, store.Range{}, store.ErrSealed},
		{"SealedWhateverFound", false, true, 0, 1, 0, store.Range{}, store.ErrSealed},
		{"FoundPastTheTop", true, false, math.MaxInt64 - 5, 6, 0, store.Range{}, store.ErrExhausted},
		{"NewKeyPastTheTop", false, false, 0, 2, math.MaxInt64 - 1, store.Range{}, store.ErrExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := storekit.NextRange(tt.found, tt.sealed, tt.next, tt.size, tt.initial)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("NextRange = %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
