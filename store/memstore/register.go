package memstore

import (
	"context"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "memory": a new, empty Store for each entry. It takes no
// settings, has no timeout of its own, leases slots, and has no server to check.
func init() { store.Register("memory", storekit.Opener(parseSpec, dialSpec)) }

// parseSpec refuses every setting: the type has none.
func parseSpec(spec store.Spec) (struct{}, store.Facts, error) {
	var none struct{}
	if err := spec.DecodeSettings(&none); err != nil {
		return none, store.Facts{}, err
	}
	return none, store.Facts{Leases: true}, nil
}

// dialSpec makes the new Store.
func dialSpec(context.Context, store.Spec, struct{}) (store.RangeStore, error) { return New(), nil }
