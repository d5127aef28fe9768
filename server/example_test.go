package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
)

// The ids of a configured generator over HTTP.
func Example() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  stores: { mem: { type: memory } }
  generators: { order: { strategy: segment, store: mem } }
`))
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	srv, err := server.New(rt, server.WithToken("s3cret"))
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	req, err := http.NewRequest("GET", ts.URL+"/v1/generators/order/next?count=3", nil)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := ts.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	// Output:
	// 1
	// 2
	// 3
}
