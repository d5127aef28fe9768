package zkstore_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
	"github.com/cosid-go/cosid/store/zkstore"
)

// TestAdminKit runs the admin test kit; every store it opens has a connection and a
// session of its own, as a second process would.
func TestAdminKit(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	storetest.RunAdmin(t, func(t *testing.T) store.Admin {
		return openStore(t, addr, zkstore.WithRoot(root))
	})
}
