package mongostore_test

import (
	"context"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestAdminKit runs the admin test kit; every store it opens has a client of its
// own, as a second process would. On FerretDB the stores take turns (see turns), so
// the kit's raises during reservations check the rules, not the server's atomicity;
// TestRaiseTo_OneAtomicUpdate checks what a raise asks the server.
func TestAdminKit(t *testing.T) {
	t.Parallel()
	uri := server(t)
	db := testDatabase(t, uri)
	mu := turns(t, uri)
	storetest.RunAdmin(t, func(t *testing.T) store.Admin { return taking{openStore(t, uri, db), mu} })
}

// The admin calls of a taking store hold its lock too.

func (s taking) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	defer s.hold()()
	return s.Store.Keys(ctx, prefix, after, limit)
}

func (s taking) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	defer s.hold()()
	return s.Store.RaiseTo(ctx, key, next)
}

func (s taking) Delete(ctx context.Context, key string) error {
	defer s.hold()()
	return s.Store.Delete(ctx, key)
}

func (s taking) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	defer s.hold()()
	return s.Store.Slots(ctx, namespace)
}

func (s taking) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	defer s.hold()()
	return s.Store.RaiseFloor(ctx, req)
}

func (s taking) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	defer s.hold()()
	return s.Store.LeaseOf(ctx, namespace, ownerKey)
}
