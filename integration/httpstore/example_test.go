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
