package memstore_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

func TestAdminContract(t *testing.T) {
	shared := memstore.New()
	storetest.RunAdmin(t, func(t *testing.T) store.Admin { return shared.Sibling() })
}
