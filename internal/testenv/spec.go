package testenv

import (
	"log/slog"

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
