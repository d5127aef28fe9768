package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

func testSpec(decodeErr error) store.Spec {
	return store.Spec{Name: "db", Path: "cosid.stores.db", Decode: func(any) error { return decodeErr }}
}

// TestSpec_DecodeSettings_WrapsInvalidArgument checks that a failed decode keeps
// Decode's error, which names the path, and wraps ErrInvalidArgument as OpenFunc's
// errors must; a good decode is no error.
func TestSpec_DecodeSettings_WrapsInvalidArgument(t *testing.T) {
	decodeErr := errors.New("cosid.stores.db.colour: unknown key")
	tests := []struct {
		name      string
		decodeErr error
		wantErr   bool
	}{
		{"Decoded", nil, false},
		{"Refused", decodeErr, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v struct{}
			err := testSpec(tt.decodeErr).DecodeSettings(&v)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("DecodeSettings = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !errors.Is(err, decodeErr) {
				t.Errorf("DecodeSettings = %v, want an error wrapping ErrInvalidArgument and Decode's", err)
			}
		})
	}
}

// TestSpec_Invalid_NamesTheSettingsPath checks the wording of a refused setting: the
// entry's path and the field, the sentinel, then why.
func TestSpec_Invalid_NamesTheSettingsPath(t *testing.T) {
	err := testSpec(nil).Invalid("options.prefix", "%q must end with %q", "x", "/")
	if !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Invalid = %v, want an error wrapping ErrInvalidArgument", err)
	}
	const want = `cosid.stores.db.options.prefix: invalid argument: "x" must end with "/"`
	if err.Error() != want {
		t.Errorf("Invalid says %q, want %q", err, want)
	}
}

// TestSpec_Timeout_DefaultsAndRefusesNegative checks the setting timeout: unset
// takes the default, a positive one stays, a negative one is refused naming it.
func TestSpec_Timeout_DefaultsAndRefusesNegative(t *testing.T) {
	const def = 2 * time.Second
	tests := []struct {
		name    string
		d       time.Duration
		want    time.Duration
		wantErr string
	}{
		{"UnsetTakesDefault", 0, def, ""},
		{"SetStays", 300 * time.Millisecond, 300 * time.Millisecond, ""},
		{"NegativeRefused", -time.Second, 0, "cosid.stores.db.timeout: invalid argument: -1s; want a positive duration such as 2s (default 2s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testSpec(nil).Timeout(tt.d, def)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Timeout(%v) = %v", tt.d, err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !errors.Is(err, store.ErrInvalidArgument)):
				t.Fatalf("Timeout(%v) = %v, want %q wrapping ErrInvalidArgument", tt.d, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Timeout(%v) = %v, want %v", tt.d, got, tt.want)
			}
		})
	}
}
