package server

import (
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// TestRange_NamesItsStoresIdentity checks that a range of /v1 and of Connect's
// NextRange carries the identity of its generator's store in Cosid-Store-Id, with
// the ids token alone: a client of several servers checks with it that every range
// came from one store.
func TestRange_NamesItsStoresIdentity(t *testing.T) {
	rt := openRuntime(t)
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.(store.Identifier).StoreID(t.Context())
	if err != nil || want == "" {
		t.Fatalf("StoreID = %q, %v", want, err)
	}
	s := mustNew(t, rt)
	status, h, body := do(t, s, "GET", "/v1/generators/order/range?count=5", "")
	if status != http.StatusOK || h.Get(wire.HeaderStoreID) != want {
		t.Errorf("GET range = %d %s, %s %q; want 200 and %q", status, body, wire.HeaderStoreID, h.Get(wire.HeaderStoreID), want)
	}
	client := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s), connect.WithProtoJSON())
	resp, err := client.NextRange(t.Context(), connect.NewRequest(&cosidv1.NextRangeRequest{Name: "order", Count: 5}))
	if err != nil || resp.Header().Get(wire.HeaderStoreID) != want {
		t.Errorf("NextRange = %v, header %q; want %q", err, resp.Header().Get(wire.HeaderStoreID), want)
	}
}

// TestGRPC_NextRange_NamesItsStoresIdentity checks that grpc-go's listener answers
// NextRange with the identity of its generator's store in the header metadata
// cosid-store-id, as the Connect handler does: a gRPC client of several servers
// checks with it that every range came from one store.
func TestGRPC_NextRange_NamesItsStoresIdentity(t *testing.T) {
	rt := openRuntime(t)
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.(store.Identifier).StoreID(t.Context())
	if err != nil || want == "" {
		t.Fatalf("StoreID = %q, %v", want, err)
	}
	conn := dialGRPC(t, serveGRPC(t, mustNew(t, rt)))
	var (
		res    cosidv1.NextRangeResponse
		header metadata.MD
	)
	err = conn.Invoke(t.Context(), cosidv1connect.IdServiceNextRangeProcedure, &cosidv1.NextRangeRequest{Name: "order", Count: 5}, &res, grpc.Header(&header))
	if got := header.Get(wire.HeaderStoreID); err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("NextRange = %v, header %s %q; want %q", err, wire.HeaderStoreID, got, want)
	}
}
