package mongostore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
)

// FerretDB v1.24.2, the test server where no MongoDB is packaged, runs an update
// (update, findAndModify) as a query followed by an UPDATE of the found _ids that
// checks the filter no more (internal/handler/msg_findandmodify.go and
// internal/backends/sqlite/collection.go UpdateAll): two concurrent $inc of one
// document can both read the same value, and a compare-and-set on a version field
// can succeed twice. MongoDB applies an update's filter and change to a document
// atomically, and the store relies on that. On FerretDB the tests therefore make
// the stores of one test take turns through one lock, which checks every rule of
// the kit but leaves the server's atomicity unchecked, and skip the tests of real
// concurrency between processes.

// isFerretDB reports whether the server at uri is FerretDB (its buildInfo names a
// FerretDB version).
func isFerretDB(t testing.TB, uri string) bool {
	t.Helper()
	var info bson.M
	if err := connect(t, uri).Database("admin").RunCommand(t.Context(), bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		t.Fatalf("buildInfo: %v", err)
	}
	_, ferret := info["ferretdbVersion"]
	return ferret
}

// turns returns the lock through which the stores of one test take turns on
// FerretDB, or nil on MongoDB.
func turns(t testing.TB, uri string) *sync.Mutex {
	t.Helper()
	if !isFerretDB(t, uri) {
		return nil
	}
	t.Log("FerretDB: the stores take turns, as its updates are not atomic")
	return new(sync.Mutex)
}

// taking is a Store whose calls hold mu, when mu is not nil.
type taking struct {
	*mongostore.Store
	mu *sync.Mutex
}

func (s taking) hold() func() {
	if s.mu == nil {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

func (s taking) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	defer s.hold()()
	return s.Store.Reserve(ctx, key, size, initialOffset)
}

func (s taking) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	defer s.hold()()
	return s.Store.GiveBack(ctx, key, tail)
}

func (s taking) Seal(ctx context.Context, key string) error {
	defer s.hold()()
	return s.Store.Seal(ctx, key)
}

func (s taking) StoreID(ctx context.Context) (string, error) {
	defer s.hold()()
	return s.Store.StoreID(ctx)
}

func (s taking) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	defer s.hold()()
	return s.Store.Acquire(ctx, req)
}

func (s taking) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	defer s.hold()()
	return s.Store.Renew(ctx, l, ttl)
}

func (s taking) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	defer s.hold()()
	return s.Store.Release(ctx, l, lastUsedMs)
}
