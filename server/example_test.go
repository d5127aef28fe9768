package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store/memstore"
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

// A store whose calls are spans, exported here to memory: a reservation's span
// names the store's type and the key.
func ExampleTraceStore() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	st := server.TraceStore(tp, "mem", "memory", memstore.New())
	if _, err := st.Reserve(context.Background(), "app/order", 100, 1); err != nil {
		panic(err)
	}
	for _, s := range exp.GetSpans() {
		attrs := attribute.NewSet(s.Attributes...)
		typ, _ := attrs.Value("cosid.store.type")
		key, _ := attrs.Value("cosid.store.key")
		fmt.Println(s.Name, typ.AsString(), key.AsString())
	}
	// Output: store.reserve memory app/order
}
