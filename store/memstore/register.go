package memstore

import (
	"context"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "memory": a new, empty Store for each entry. It takes no
// settings, has no timeout of its own, leases slots, and has no server to check.
func init() { store.Register("memory", storekit.Opener(parseSpec, dialSpec)) }

// parseSpec has nothing to check: the type has no settings, so every setting fails
// to decode.
func parseSpec(_ store.Spec, none struct{}) (struct{}, store.Facts, error) {
	return none, store.Facts{Leases: true}, nil
}

// dialSpec makes the new Store.
func dialSpec(context.Context, store.Spec, struct{}) (store.RangeStore, error) { return New(), nil }
