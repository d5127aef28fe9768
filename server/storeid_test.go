package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storekit"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// TestStoreAPI_NamesTheStoreIdentity checks that the store API names the served
// store's identity: the ping's answer, and a header on every answer, a refused one
// too, of /v1/store and of the Connect StoreService; /readyz's details name it.
func TestStoreAPI_NamesTheStoreIdentity(t *testing.T) {
	st := memstore.New()
	want, err := storekit.StoreID(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, st)

	code, _, body := do(t, s, http.MethodGet, wire.PathPing, "")
	var ping wire.Ping
	if err := json.Unmarshal([]byte(body), &ping); code != http.StatusOK || err != nil || ping.StoreID != want {
		t.Errorf("GET %s = %d %s, want 200 {\"storeId\": %q}", wire.PathPing, code, body, want)
	}
	for _, c := range []struct{ path, body string }{
		{wire.PathPing, ""},
		{wire.PathReserve, `{"key": "k", "size": 10}`},
		{wire.PathReserve, `{"key": "k", "size": -1}`}, // refused
		{wire.PathSeal, `{"key": "k"}`},
		{wire.PathGiveBack, `{"key": "k", "start": "5", "end": "11"}`},
	} {
		method := http.MethodPost
		if c.body == "" {
			method = http.MethodGet
		}
		code, h, body := do(t, s, method, c.path, c.body)
		if got := h.Get(wire.HeaderStoreID); got != want {
			t.Errorf("%s %s %s = %d %s with %s %q, want %q", method, c.path, c.body, code, body, wire.HeaderStoreID, got, want)
		}
	}

	rpc := cosidv1connect.NewStoreServiceClient(http.DefaultClient, serveRPC(t, s))
	res, err := rpc.Reserve(t.Context(), connect.NewRequest(&cosidv1.ReserveRequest{Key: "c", Size: 10}))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Header().Get(wire.HeaderStoreID); got != want {
		t.Errorf("Connect Reserve: %s %q, want %q", wire.HeaderStoreID, got, want)
	}
	_, err = rpc.Reserve(t.Context(), connect.NewRequest(&cosidv1.ReserveRequest{Key: "c", Size: -1}))
	var cerr *connect.Error
	if !errors.As(err, &cerr) || cerr.Meta().Get(wire.HeaderStoreID) != want {
		t.Errorf("Connect Reserve refused (%v): %s %q, want %q", err, wire.HeaderStoreID, cerr.Meta().Get(wire.HeaderStoreID), want)
	}

	_, _, body = do(t, s, http.MethodGet, "/readyz", "")
	var ready readiness
	if err := json.Unmarshal([]byte(body), &ready); err != nil || ready.StoreID != want {
		t.Errorf("/readyz = %s, want its details to name storeId %q", body, want)
	}
}
