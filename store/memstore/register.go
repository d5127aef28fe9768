package memstore

import (
	"context"

	"github.com/cosid-go/cosid/store"
)

// The configuration type "memory": a new, empty Store for each entry. It takes no
// settings, has no timeout of its own, leases slots, and has no server to check.
func init() {
	store.Register("memory", store.Type{Check: checkSpec, Open: func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
		if _, err := checkSpec(spec); err != nil {
			return nil, err
		}
		return New(), nil
	}})
}

func checkSpec(spec store.Spec) (store.Facts, error) {
	var none struct{}
	if err := spec.Decode(&none); err != nil {
		return store.Facts{}, err
	}
	return store.Facts{Leases: true}, nil
}
