package memstore_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

func TestRangeStoreContract(t *testing.T) {
	shared := memstore.New()
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return shared.Sibling() })
}
