package sqlstore_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestRangeStoreKit runs the store test kit on every live dialect with both fetch
// plans; two Stores, each with its own pool, stand in for two processes.
func TestRangeStoreKit(t *testing.T) {
	for _, b := range backends {
		for _, plan := range []sqlstore.FetchPlan{sqlstore.FetchStatement, sqlstore.FetchTransaction} {
			t.Run(b.name+"/"+string(plan), func(t *testing.T) {
				t.Parallel()
				dsn := b.dsn(t)
				storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
					st := openStore(t, b, dsn, sqlstore.WithFetchPlan(plan))
					if st.Dialect() != b.name {
						t.Fatalf("dialect detected as %q, want %q", st.Dialect(), b.name)
					}
					return st
				})
			})
		}
	}
}
