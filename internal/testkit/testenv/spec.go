package testenv

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/store"
)

// Spec returns the Spec of the store entry cosid.stores.<name> whose settings are
// text, decoded as the root package decodes them (unknown keys are errors), for
// tests of a store type's opener. logger may be nil.
func Spec(name, text string, logger *slog.Logger) store.Spec {
	path := "cosid.stores." + name
	return store.Spec{Name: name, Path: path, Decode: func(v any) error {
		node, err := strictyaml.Parse([]byte(text))
		if err != nil {
			return err
		}
		return strictyaml.Decode(node, path, v)
	}, Logger: logger}
}

// Refused checks and opens the settings text as the entry cosid.stores.<name> of
// store type typ, which must refuse them: it fails t unless Open's error wraps
// store.ErrInvalidArgument and mentions each of mention (the setting's path, what
// the setting allows), and unless Check refuses them too. It returns Open's error
// for further checks.
func Refused(t testing.TB, typ, name, text string, mention ...string) error {
	t.Helper()
	st, ok := store.Lookup(typ)
	if !ok {
		t.Fatalf("store type %q is not registered", typ)
	}
	spec := Spec(name, text, slog.New(slog.DiscardHandler))
	opened, err := st.Open(t.Context(), spec)
	if err == nil {
		opened.Close()
		t.Fatalf("store type %q opened\n%s\nwant an error", typ, text)
	}
	if !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("error %q does not wrap ErrInvalidArgument", err)
	}
	for _, m := range mention {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not mention %q", err, m)
		}
	}
	if _, cerr := st.Check(spec); cerr == nil {
		t.Errorf("store type %q: Check accepted\n%s\nwhich Open refused: %v", typ, text, err)
	}
	return err
}

// Opened checks and opens the settings text as the entry cosid.stores.<name> of
// store type typ, closing the store when t ends, and checks what every configured
// store does: its Check answers the store's timeout and whether it leases slots, it
// bounds its calls by timeout (store.Timeouter), and a new key's first range starts
// at its initial offset. The key "k" is reserved.
func Opened(t testing.TB, typ, name, text string, timeout time.Duration) store.RangeStore {
	t.Helper()
	tp, ok := store.Lookup(typ)
	if !ok {
		t.Fatalf("store type %q is not registered", typ)
	}
	spec := Spec(name, text, slog.New(slog.DiscardHandler))
	facts, err := tp.Check(spec)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	st, err := tp.Open(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if to, ok := st.(store.Timeouter); !ok || to.Timeout() != timeout {
		t.Errorf("the store's timeout is not %v (a store.Timeouter: %v)", timeout, ok)
	}
	if _, leases := st.(store.SlotLeaseStore); facts.Timeout != timeout || facts.Leases != leases {
		t.Errorf("Check = %+v; want Timeout %v and Leases %v, as the store opened", facts, timeout, leases)
	}
	if r, err := st.Reserve(t.Context(), "k", 2, 5); err != nil || r != (store.Range{Start: 5, End: 7}) {
		t.Errorf("Reserve = %v, %v; want [5, 7)", r, err)
	}
	return st
}
