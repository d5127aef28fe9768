package httpstore_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/memstore"
)

// A generator whose store is a cosid serve: here one in the same process, on a
// memory store.
func Example() {
	ctx := context.Background()
	rt, _ := cosid.Open(ctx, cosid.Config{}, cosid.WithLogger(nil))
	defer rt.Close()
	srv, err := server.New(rt, server.WithStore(memstore.New()))
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	st, err := httpstore.New(ts.URL, httpstore.WithTimeout(2*time.Second))
	if err != nil {
		panic(err)
	}
	defer st.Close()
	g, err := segment.New(st, "app/order", segment.DefaultBatchPolicy())
	if err != nil {
		panic(err)
	}
	defer g.Close()
	a, _ := g.Next()
	b, _ := g.Next()
	fmt.Println(a, b)
	// Output: 1 2
}

// A store over two servers of one store, pinned to it, of which the first is down:
// the call that finds it refusing goes on to the second, and the later calls start
// there.
func ExampleNewServers() {
	ctx := context.Background()
	rt, _ := cosid.Open(ctx, cosid.Config{}, cosid.WithLogger(nil))
	defer rt.Close()
	shared := memstore.New()
	srvA, _ := server.New(rt, server.WithStore(shared))
	srvB, _ := server.New(rt, server.WithStore(shared.Sibling()))
	a, b := httptest.NewServer(srvA), httptest.NewServer(srvB)
	defer b.Close()
	a.Close() // a is down: a connection to it is refused

	storeID, _ := shared.StoreID(ctx) // as the servers log it at start
	st, err := httpstore.NewServers([]string{a.URL, b.URL}, httpstore.WithStoreID(storeID), httpstore.WithTimeout(2*time.Second))
	if err != nil {
		panic(err)
	}
	defer st.Close()
	r1, err := st.Reserve(ctx, "app/order", 100, 1)
	if err != nil {
		panic(err)
	}
	r2, _ := st.Reserve(ctx, "app/order", 100, 1)
	fmt.Println(r1, r2)
	// Output: [1, 101) [101, 201)
}
