package httpstore_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// storeServer starts a server of the store API whose store is id ("" names none):
// it answers every reservation [next, next+size), as a store of its own would, and
// counts them.
func storeServer(t *testing.T, id string) (string, *atomic.Int64) {
	t.Helper()
	var next atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id != "" {
			w.Header().Set(wire.HeaderStoreID, id)
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case wire.PathPing:
			json.NewEncoder(w).Encode(wire.Ping{StoreID: id})
		case wire.PathReserve:
			var req wire.ReserveRequest
			json.NewDecoder(r.Body).Decode(&req)
			end := next.Add(req.Size)
			json.NewEncoder(w).Encode(wire.Range{Start: end - req.Size, End: end})
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL, &next
}

// TestStoreID_PinnedRefusesAnotherStore checks that a Store pinned to a store
// (WithStoreID) never returns a range of a server of another store, or of one that
// names none: the call goes on to the next server, and fails, naming the server and
// both identities, when no server of the pinned store answers.
func TestStoreID_PinnedRefusesAnotherStore(t *testing.T) {
	right, rightN := storeServer(t, "aaaa000000000001")
	wrong, wrongN := storeServer(t, "bbbb000000000002")
	unnamed, _ := storeServer(t, "")

	st, err := httpstore.NewServers([]string{wrong, right}, httpstore.WithStoreID("aaaa000000000001"))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := st.Reserve(t.Context(), "k", 10, 0); err != nil {
			t.Fatalf("Reserve with the pinned store second in urls: %v", err)
		}
	}
	if rightN.Load() != 30 {
		t.Errorf("the pinned store reserved %d values, want 30", rightN.Load())
	}
	if id, err := st.StoreID(t.Context()); err != nil || id != "aaaa000000000001" {
		t.Errorf("StoreID = %q, %v; want the pinned store's", id, err)
	}

	for _, other := range []struct{ url, says string }{{wrong, "store bbbb000000000002"}, {unnamed, "no store identity"}} {
		only, err := httpstore.NewServers([]string{other.url}, httpstore.WithStoreID("aaaa000000000001"))
		if err != nil {
			t.Fatal(err)
		}
		before := wrongN.Load()
		r, err := only.Reserve(t.Context(), "k", 10, 0)
		if err == nil || !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), other.url) ||
			!strings.Contains(err.Error(), other.says) || !strings.Contains(err.Error(), "store-id aaaa000000000001") {
			t.Errorf("Reserve on %s only = %v, %v; want no range, unavailable, naming the server, %s and store-id aaaa000000000001", other.says, r, err, other.says)
		}
		if other.url == wrong && wrongN.Load() == before {
			t.Errorf("the server of another store was not asked: the test proves nothing")
		}
		if err := only.Ping(t.Context()); err == nil {
			t.Errorf("Ping of a server of %s = nil, want the refusal", other.says)
		}
	}
}

// TestPing_ServersOfTwoStoresFail checks that Ping (config check --open) fails when
// two servers of urls serve two stores, and passes when they serve one.
func TestPing_ServersOfTwoStoresFail(t *testing.T) {
	a, _ := storeServer(t, "aaaa000000000001")
	a2, _ := storeServer(t, "aaaa000000000001")
	b, _ := storeServer(t, "bbbb000000000002")
	for _, tc := range []struct {
		urls []string
		pin  string
		ok   bool
	}{
		{[]string{a, a2}, "aaaa000000000001", true},
		{[]string{a, b}, "aaaa000000000001", false},
		{[]string{a, b}, "", false},
		{[]string{b}, "", true},
	} {
		var opts []httpstore.Option
		if tc.pin != "" {
			opts = append(opts, httpstore.WithStoreID(tc.pin))
		}
		st, err := httpstore.NewServers(tc.urls, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Ping(t.Context()); (err == nil) != tc.ok {
			t.Errorf("Ping of %q pinned to %q = %v, want ok %v", tc.urls, tc.pin, err, tc.ok)
		}
	}
}
