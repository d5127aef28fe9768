package store_test

import (
	"errors"
	"fmt"
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
			if err.Error() != decodeErr.Error() {
				t.Errorf("DecodeSettings says %q, want Decode's %q alone", err, decodeErr)
			}
		})
	}
}

// TestSpec_Invalid_NamesTheSettingsPath checks the wording of a refused setting: the
// entry's path and the field, then why, matching the sentinel without saying it:
// no stray "invalid argument:" inside a configuration error.
func TestSpec_Invalid_NamesTheSettingsPath(t *testing.T) {
	err := testSpec(nil).Invalid("options.prefix", "%q must end with %q", "x", "/")
	if !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Invalid = %v, want an error wrapping ErrInvalidArgument", err)
	}
	const want = `cosid.stores.db.options.prefix: "x" must end with "/"`
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
		{"NegativeRefused", -time.Second, 0, "cosid.stores.db.timeout: -1s; want a positive duration such as 2s (default 2s)"},
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

// TestSpec_DecodeSettings_ResolvesFiles checks the one mechanism of issue 19's file
// settings: every File that DecodeSettings decodes, at any depth (a nested struct, a
// pointer, a slice, a map), is read from Dir when relative; an absolute one, an
// empty one, and every File when Dir is empty, stay as written; other strings too.
func TestSpec_DecodeSettings_ResolvesFiles(t *testing.T) {
	type tlsFiles struct {
		CA   store.File
		Cert *store.File
	}
	type settings struct {
		Password store.File
		Abs      store.File
		Empty    store.File
		Name     string
		TLS      *tlsFiles
		Extra    []store.File
		ByName   map[string]store.File
		unset    store.File
	}
	fill := func(v any) error {
		cert := store.File("tls/cert.pem")
		*v.(*settings) = settings{Password: "pw", Abs: "/run/secrets/x", Name: "pw", TLS: &tlsFiles{CA: "ca.pem", Cert: &cert},
			Extra: []store.File{"a", "/b"}, ByName: map[string]store.File{"k": "k.pem"}, unset: "u"}
		return nil
	}
	for _, tt := range []struct {
		dir  string
		want func(string) string
	}{
		{"/etc/cosid", func(f string) string { return "/etc/cosid/" + f }},
		{"", func(f string) string { return f }},
	} {
		var got settings
		spec := store.Spec{Name: "db", Path: "cosid.stores.db", Dir: tt.dir, Decode: fill}
		if err := spec.DecodeSettings(&got); err != nil {
			t.Fatal(err)
		}
		checks := []struct{ name, got, want string }{
			{"Password", string(got.Password), tt.want("pw")},
			{"Abs", string(got.Abs), "/run/secrets/x"},
			{"Empty", string(got.Empty), ""},
			{"Name", got.Name, "pw"},
			{"TLS.CA", string(got.TLS.CA), tt.want("ca.pem")},
			{"TLS.Cert", string(*got.TLS.Cert), tt.want("tls/cert.pem")},
			{"Extra[0]", string(got.Extra[0]), tt.want("a")},
			{"Extra[1]", string(got.Extra[1]), "/b"},
			{"ByName[k]", string(got.ByName["k"]), tt.want("k.pem")},
			{"unset", string(got.unset), "u"},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("Dir %q: %s = %q, want %q", tt.dir, c.name, c.got, c.want)
			}
		}
	}
}

// TestSentinel_MatchesItsParent checks store.Sentinel, the way segment's and
// snowflake's outage errors are store.ErrUnavailable: its own message and identity,
// and errors.Is of its parent, also when wrapped.
func TestSentinel_MatchesItsParent(t *testing.T) {
	own := store.Sentinel("no range available", store.ErrUnavailable)
	wrapped := fmt.Errorf("segment %q: %w: %w", "k", own, errors.New("connection refused"))
	if own.Error() != "no range available" || !errors.Is(wrapped, own) || !errors.Is(wrapped, store.ErrUnavailable) {
		t.Errorf("Sentinel %q wrapped as %q: matches itself %v, its parent %v", own, wrapped, errors.Is(wrapped, own), errors.Is(wrapped, store.ErrUnavailable))
	}
	if other := store.Sentinel("no range available", store.ErrUnavailable); errors.Is(wrapped, other) {
		t.Error("two sentinels of one message match each other")
	}
	if errors.Is(store.ErrNotSetUp, store.ErrUnavailable) {
		t.Error("ErrNotSetUp matches ErrUnavailable: a missing table is no outage")
	}
}
