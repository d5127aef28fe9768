package sqldb_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestAdminKit runs the admin test kit on every live dialect; two Stores, each with
// its own pool, stand in for two processes.
func TestAdminKit(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			storetest.RunAdmin(t, func(t *testing.T) store.Admin { return openStore(t, b, dsn) })
		})
	}
}
