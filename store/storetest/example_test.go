package storetest_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// A store's own test runs the kit. The stores that open returns within one test must
// share one backend, as two processes share a database; here two memstore Siblings.
// (The example has no output to check: a *testing.T comes only from go test.)
func ExampleRunRangeStore() {
	var t *testing.T // the *testing.T of a TestXxx function
	backend := memstore.New()
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
		return backend.Sibling()
	})
}
