package httpstore_test

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// unbounded lifts the server's caps, which the kits, checking the store contract
// up to its edges (S5, a day's lease), pass.
var unbounded = server.WithLimits(server.Limits{MaxReserve: math.MaxInt64, MaxSlots: store.MaxSlots, MaxLeaseTTL: math.MaxInt64})

// serve starts a server of st, without caps, and returns its URL.
func serve(t testing.TB, st store.RangeStore, opts ...server.Option) string {
	t.Helper()
	rt, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := server.New(rt, append([]server.Option{server.WithStore(st), server.WithLogger(nil), unbounded}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

func newStoreB(_ testing.TB, url string, opts ...httpstore.Option) (*httpstore.Store, error) {
	return httpstore.New(url, opts...)
}

func newStore(t *testing.T, url string, opts ...httpstore.Option) *httpstore.Store {
	t.Helper()
	st, err := httpstore.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRangeStoreContract runs the kit with every other store instance behind a
// second server of the same backend, as processes behind a load balancer. The
// servers take a token, which serves the admin routes that the kit's S7 cases read
// a key's state with.
func TestRangeStoreContract(t *testing.T) {
	shared := memstore.New()
	urls := []string{serve(t, shared, server.WithToken("s3cret")), serve(t, shared.Sibling(), server.WithToken("s3cret"))}
	n := 0
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
		n++
		return newStore(t, urls[n%2], httpstore.WithToken("s3cret"))
	})
}

func TestSlotLeaseStoreContract(t *testing.T) {
	clock := storetest.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	backend := memstore.New(memstore.WithClock(clock.Now))
	url := serve(t, backend)
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
		return storetest.Clocked(newStore(t, url), clock)
	}, listedSlots(backend))
}

// listedSlots counts the slots of a namespace that a store lists (store.Admin's
// Slots), for the lease kit (storetest.WithSlotRows): the records of a store, such
// as memstore, that keeps one only for a slot it leased or whose floor it raised.
func listedSlots(st store.Admin) storetest.LeaseOption {
	return storetest.WithSlotRows(func(ctx context.Context, namespace string) (int, error) {
		info, err := st.Slots(ctx, namespace)
		if errors.Is(err, store.ErrNotFound) {
			return 0, nil
		}
		return len(info.Slots), err
	})
}

func TestErrors_SentinelsCrossTheWire(t *testing.T) {
	st := newStore(t, serve(t, memstore.New()))
	ctx := t.Context()
	if err := st.Seal(ctx, "k/sealed"); err != nil {
		t.Fatal(err)
	}
	_, err := st.Reserve(ctx, "k/sealed", 1, 0)
	if !errors.Is(err, store.ErrSealed) || !strings.Contains(err.Error(), "k/sealed") {
		t.Errorf("reserve of a sealed key: %v, want ErrSealed naming the key", err)
	}
	_, err = st.Reserve(ctx, "k/full", 1<<62, 1<<62)
	if !errors.Is(err, store.ErrExhausted) || strings.Count(err.Error(), "range exhausted") != 1 {
		t.Errorf("reserve past MaxInt64: %v, want ErrExhausted, said once", err)
	}
}

func TestAuth_Token(t *testing.T) {
	url := serve(t, memstore.New(), server.WithToken("t0ken"))
	if _, err := newStore(t, url).Reserve(t.Context(), "a", 1, 0); !errors.Is(err, wire.ErrRemote) || !strings.Contains(err.Error(), "401") {
		t.Errorf("without the token: %v, want a 401", err)
	}
	if _, err := newStore(t, url, httpstore.WithToken("t0ken")).Reserve(t.Context(), "a", 1, 0); err != nil {
		t.Errorf("with the token: %v", err)
	}
}

// TestTimeout_BoundsEveryCall points the store at a server that never answers.
func TestTimeout_BoundsEveryCall(t *testing.T) {
	block := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer hs.Close()
	defer close(block)
	st := newStore(t, hs.URL, httpstore.WithTimeout(50*time.Millisecond))
	if st.Timeout() != 50*time.Millisecond {
		t.Errorf("Timeout() = %v", st.Timeout())
	}
	_, err := st.Reserve(t.Context(), "a", 1, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("reserve against a hung server: %v, want a deadline error", err)
	}
}

// TestRetry_OnlyWhenRefused counts the calls that reach a server that fails them:
// a failed call that reached it is not repeated.
func TestRetry_OnlyWhenRefused(t *testing.T) {
	calls := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer hs.Close()
	if _, err := newStore(t, hs.URL).Reserve(t.Context(), "a", 1, 0); !errors.Is(err, wire.ErrRemote) {
		t.Errorf("reserve: %v, want ErrRemote", err)
	}
	if calls != 1 {
		t.Errorf("%d calls reached the server, want 1", calls)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = newStore(t, "http://"+addr).Reserve(t.Context(), "a", 1, 0)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Errorf("reserve against a closed port: %v, want a dial error", err)
	}
}

func TestNew_BadArguments(t *testing.T) {
	for _, url := range []string{"", "127.0.0.1:8686", "ftp://host", "http://", "http://h/?a=1", "://x"} {
		if _, err := httpstore.New(url); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), "url") {
			t.Errorf("New(%q): %v, want ErrInvalidArgument naming the url", url, err)
		}
	}
	if _, err := httpstore.New("http://h", httpstore.WithTimeout(-1)); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("negative timeout: %v", err)
	}
}

// TestConfig_TypeHTTP opens a runtime whose generator is on a store of type http
// reading its token from a file, over two servers of which the first is down.
func TestConfig_TypeHTTP(t *testing.T) {
	st := memstore.New()
	storeID, serr := st.StoreID(t.Context())
	if serr != nil {
		t.Fatal(serr)
	}
	url := serve(t, st, server.WithToken("from-file"))
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  stores:
    ids: { type: http, urls: ["` + "http://" + testenv.ClosedAddr(t) + `", "` + url + `"], store-id: ` + storeID + `, token-file: ` + tokenFile + `, timeout: 2s }
  generators:
    order: { strategy: segment, store: ids, reserve-timeout: 3s }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if id, err := rt.Next(t.Context(), "order"); err != nil || id != "1" {
		t.Errorf("Next = %q, %v; want 1", id, err)
	}
}

func TestConfig_Errors(t *testing.T) {
	tests := []struct{ settings, want string }{
		{`{ type: http }`, "cosid.stores.ids.url: missing"},
		{`{ type: http, url: "x" }`, "cosid.stores.ids"},
		{`{ type: http, url: "http://h", token-file: /nonexistent/token }`, "cosid.stores.ids.token-file"},
		{`{ type: http, url: "http://h", tls: true }`, "tls"},
		{`{ type: http, url: "http://a", urls: ["http://b"] }`, "both url and urls are set"},
		{`{ type: http, urls: [] }`, "cosid.stores.ids.urls: empty"},
		{`{ type: http, urls: ["http://a:1", "http://b:1"] }`, "cosid.stores.ids.store-id: missing: urls lists 2 servers"},
		{`{ type: http, url: "http://h", store-id: " x" }`, `cosid.stores.ids.store-id: " x"`},
		{`{ type: http, urls: ["http://a:1", "http://a:1/"] }`, `cosid.stores.ids.urls: httpstore: urls[1] "http://a:1/" is urls[0] again`},
		{`{ type: http, urls: ["http://a:1", "a:2"] }`, `cosid.stores.ids.urls: httpstore: url "a:2"`},
		{`{ type: http, urls: "http://a:1" }`, "urls"},
		{`{ type: http, url: "http://h", timeout: -1s }`, "cosid.stores.ids.timeout: -1s"},
	}
	for _, tt := range tests {
		cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores:\n    ids: " + tt.settings + "\n"))
		if err == nil {
			_, err = cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
		}
		if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a config error naming %s", tt.settings, err, tt.want)
		}
	}
}
