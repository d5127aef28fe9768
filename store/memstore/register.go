package memstore

import (
	"context"

	"github.com/cosid-go/cosid/store"
)

// The configuration type "memory": a new, empty Store for each entry. It takes no
// settings.
func init() {
	store.Register("memory", func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
		var none struct{}
		if err := spec.Decode(&none); err != nil {
			return nil, err
		}
		return New(), nil
	})
}
