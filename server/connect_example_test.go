package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid"
	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
	"github.com/cosid-go/cosid/server"
)

// The ids of a configured generator over the Connect API, and a stream of ranges for
// a bulk loader (the rest of the range the first ids came from is skipped, as
// NextRange does). WithH2C would let a gRPC client dial the same server without TLS.
func ExampleWithH2C() {
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
	srv, err := server.New(rt, server.WithH2C(true))
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	ids := cosidv1connect.NewIdServiceClient(ts.Client(), ts.URL)
	res, err := ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "order", Count: 3}))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Msg.Ids)

	stream, err := ids.StreamRanges(ctx, connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "order", Size: 1000, MaxRanges: 2}))
	if err != nil {
		panic(err)
	}
	defer stream.Close()
	for stream.Receive() {
		fmt.Println(stream.Msg().Start, stream.Msg().End)
	}
	if err := stream.Err(); err != nil {
		panic(err)
	}
	// Output:
	// [1 2 3]
	// 4 1004
	// 1004 2004
}
