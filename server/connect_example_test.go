package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// A bulk loader that reads ranges with ReadRanges, keeping 4 ranges asked ahead of
// those it has read: the server reserves a range only once asked for it, so a
// loader that stops has cost the store at most 4 ranges it never read. The call
// streams both ways, which needs HTTP/2: here over TLS; the gRPC listener, or
// WithH2C, give it without.
func Example_readRanges() {
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
	srv, err := server.New(rt)
	if err != nil {
		panic(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()

	const ahead, total = 4, 6
	stream := cosidv1connect.NewIdServiceClient(ts.Client(), ts.URL).ReadRanges(ctx)
	if err := stream.Send(&cosidv1.ReadRangesRequest{Name: "order", Size: 1000, Want: ahead}); err != nil {
		panic(err)
	}
	asked := ahead
	for range total {
		r, err := stream.Receive()
		if err != nil {
			panic(err)
		}
		fmt.Println(r.Start, r.End) // the loader counts out the ids [Start, End)
		if asked < total {
			if err := stream.Send(&cosidv1.ReadRangesRequest{Want: 1}); err != nil {
				panic(err)
			}
			asked++
		}
	}
	// Nothing more to ask: the server ends the call once every range asked is sent.
	if err := stream.CloseRequest(); err != nil {
		panic(err)
	}
	if _, err := stream.Receive(); !errors.Is(err, io.EOF) {
		panic(err)
	}
	if err := stream.CloseResponse(); err != nil {
		panic(err)
	}
	// Output:
	// 1 1001
	// 1001 2001
	// 2001 3001
	// 3001 4001
	// 4001 5001
	// 5001 6001
}
