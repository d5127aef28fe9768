package httpstore_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// fake starts a server that answers every call with status and body.
func fake(t *testing.T, status int, body string, header ...string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestSecurity_L1_HTTPStoreFollowsNoRedirect points a store at a server that
// redirects every call to another port: the other server sees no call (no token, no
// body), and the error names the redirect, with the store's own client or one given.
func TestSecurity_L1_HTTPStoreFollowsNoRedirect(t *testing.T) {
	var stolen atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		w.Write([]byte(`{"start":"0","end":"1"}`))
	}))
	t.Cleanup(thief.Close)
	for _, status := range []int{301, 302, 307, 308} {
		url := fake(t, status, "", "Location", thief.URL+"/steal")
		for name, opts := range map[string][]httpstore.Option{
			"OwnClient":   {httpstore.WithToken("s3cret")},
			"GivenClient": {httpstore.WithToken("s3cret"), httpstore.WithHTTPClient(&http.Client{})},
		} {
			st := newStore(t, url, opts...)
			_, err := st.Reserve(t.Context(), "k", 1, 0)
			if err == nil || !errors.Is(err, wire.ErrRemote) || !strings.Contains(err.Error(), "redirect to") || !strings.Contains(err.Error(), "/steal") {
				t.Errorf("%d %s: Reserve = %v, want an error naming the redirect", status, name, err)
			}
		}
	}
	if n := stolen.Load(); n > 0 {
		t.Errorf("the redirect's target got %d calls", n)
	}
}

// TestSecurity_L2_HTTPStoreChecksRangesAndLeases answers a store with ranges of the
// wrong size, a negative start or none, and leases of a slot outside [0, limit):
// each is refused with an error naming what the server answered.
func TestSecurity_L2_HTTPStoreChecksRangesAndLeases(t *testing.T) {
	ctx := t.Context()
	lease := func(slot string) string {
		return `{"namespace":"ns","ownerKey":"o","incarnation":"i","slot":` + slot + `,"fence":1,"expiresAt":"2030-01-01T00:00:00Z","floor":1,"ceiling":2,"storeNow":"2030-01-01T00:00:00Z"}`
	}
	req := store.LeaseRequest{Namespace: "ns", OwnerKey: "o", Limit: 4, TTL: time.Minute, Preferred: -1}
	tests := []struct {
		name, body, want string
		call             func(st *httpstore.Store) error
	}{
		{"StartAboveEnd", `{"start":"5000","end":"4000"}`, "[5000, 4000)", nil},
		{"WrongSize", `{"start":"0","end":"50000"}`, "[0, 50000)", nil},
		{"NegativeStart", `{"start":"-1000","end":"0"}`, "[-1000, 0)", nil},
		{"Empty", `{}`, "[0, 0)", nil},
		{"SlotAtLimit", lease("4"), "slot 4", func(st *httpstore.Store) error { _, err := st.Acquire(ctx, req); return err }},
		{"SlotNegative", lease("-1"), "slot -1", func(st *httpstore.Store) error { _, err := st.Acquire(ctx, req); return err }},
		{"RenewedOtherSlot", lease("3"), "slot 3", func(st *httpstore.Store) error {
			_, err := st.Renew(ctx, store.Lease{Namespace: "ns", OwnerKey: "o", Incarnation: "i", Slot: 1, Fence: 1}, time.Minute)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t, fake(t, 200, tt.body))
			call := tt.call
			if call == nil {
				call = func(st *httpstore.Store) error { _, err := st.Reserve(ctx, "k", 1000, 0); return err }
			}
			err := call(st)
			if !errors.Is(err, wire.ErrRemote) || !strings.Contains(err.Error(), "the server answered "+tt.want) {
				t.Errorf("%s = %v, want an error naming %q", tt.name, err, tt.want)
			}
		})
	}
}

// TestSecurity_L3_HTTPStoreRefusesURLUserInfo checks that New refuses a URL with a
// user or password in it, saying so, and that its error shows no password.
func TestSecurity_L3_HTTPStoreRefusesURLUserInfo(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"http://u:HttpP4ssLEAK@127.0.0.1:8686", "user info"},
		{"http://user@127.0.0.1:8686", "user info"},
		{"ftp://u:HttpP4ssLEAK@127.0.0.1", "want http://host:port"},
	} {
		_, err := httpstore.New(tt.url)
		if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "HttpP4ssLEAK") {
			t.Errorf("New(%q) = %v, want an invalid argument saying %q without the password", tt.url, err, tt.want)
		}
	}
}
