package testenv

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

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

// Refused opens the settings text as the entry cosid.stores.<name> of store type
// typ, which must refuse them: it fails t unless the error wraps
// store.ErrInvalidArgument and mentions each of mention (the setting's path, what
// the setting allows). It returns the error for further checks.
func Refused(t testing.TB, typ, name, text string, mention ...string) error {
	t.Helper()
	open, ok := store.Lookup(typ)
	if !ok {
		t.Fatalf("store type %q is not registered", typ)
	}
	st, err := open(t.Context(), Spec(name, text, slog.New(slog.DiscardHandler)))
	if err == nil {
		st.Close()
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
	return err
}
