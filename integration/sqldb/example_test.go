package sqldb_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the driver: the program imports it, sqlstore does not

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// Open a store on a SQLite file, creating its tables, and reserve ranges of a key:
// sqlstore's ExampleOpen, run.
func Example_open() {
	dir, _ := os.MkdirTemp("", "cosid")
	defer os.RemoveAll(dir)
	st, err := sqlstore.Open("sqlite", filepath.Join(dir, "cosid.db"), 2*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	first, _ := st.Reserve(ctx, "app/order", 100, 1)
	second, _ := st.Reserve(ctx, "app/order", 100, 1)
	fmt.Println(st.Dialect(), first, second)
	// Output: sqlite [1, 101) [101, 201)
}

// Lease slots of a namespace of two, as the snowflake generators of two instances
// would: each gets a slot of its own, a third instance finds none free, and an
// instance that starts again gets its earlier slot back: sqlstore's
// ExampleStore_Acquire, run.
func Example_acquire() {
	// An in-memory SQLite database lives as long as the store's one connection.
	st, err := sqlstore.Open("sqlite", ":memory:", 2*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	req := func(owner string) store.LeaseRequest {
		return store.LeaseRequest{Namespace: "app/events", OwnerKey: owner, Limit: 2, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	}
	a, _ := st.Acquire(ctx, req("host-a"))
	b, _ := st.Acquire(ctx, req("host-b"))
	_, err = st.Acquire(ctx, req("host-c"))
	fmt.Println(a.Slot, b.Slot, errors.Is(err, store.ErrNoFreeSlot))

	st.Release(ctx, b, b.Floor-1) // host-b stops, having stamped no id
	b, _ = st.Acquire(ctx, req("host-b"))
	fmt.Println(b.Slot, b.Fence)
	// Output:
	// 0 1 true
	// 1 2
}
