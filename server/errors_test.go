package server

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
	_ "github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// TestErrors_BadRequests sends requests that are wrong in one way each: every one
// gets its status and code, and a message naming what was wrong.
func TestErrors_BadRequests(t *testing.T) {
	lease := `{"namespace":"ns","ownerKey":"o","incarnation":"i","slot":0,"fence":1}`
	tests := []struct {
		name, method, target, body string
		status                     int
		code, mention              string
	}{
		{"unknown generator", "GET", "/v1/generators/nope/next", "", 404, wire.CodeUnknownGenerator, "bill, code, event, order"},
		{"unknown generator range", "GET", "/v1/generators/nope/range", "", 404, wire.CodeUnknownGenerator, `"nope"`},
		{"unknown generator decode", "GET", "/v1/generators/nope/decode?text=1", "", 404, wire.CodeUnknownGenerator, `"nope"`},
		{"count zero", "GET", "/v1/generators/order/next?count=0", "", 400, wire.CodeInvalidArgument, "count"},
		{"count negative", "GET", "/v1/generators/order/next?count=-5", "", 400, wire.CodeInvalidArgument, "count"},
		{"count too many", "GET", "/v1/generators/order/next?count=10001", "", 400, wire.CodeInvalidArgument, "10000"},
		{"count not a number", "GET", "/v1/generators/order/next?count=ten", "", 400, wire.CodeInvalidArgument, `"ten"`},
		{"range count too many", "GET", "/v1/generators/order/range?count=99999", "", 400, wire.CodeInvalidArgument, "count"},
		{"range of a snowflake", "GET", "/v1/generators/event/range", "", 400, wire.CodeInvalidArgument, "snowflake"},
		{"range of a periodic", "GET", "/v1/generators/bill/range", "", 400, wire.CodeInvalidArgument, "periodic-segment"},
		{"decode without text", "GET", "/v1/generators/code/decode", "", 400, wire.CodeInvalidArgument, "text"},
		{"decode bad text", "GET", "/v1/generators/code/decode?text=X-1", "", 400, wire.CodeInvalidArgument, `"X-1"`},
		{"decode bad period", "GET", "/v1/generators/bill/decode?text=2026-1", "", 400, wire.CodeInvalidArgument, "2026-1"},
		{"unknown route", "GET", "/v2/ids", "", 404, wire.CodeNotFound, "route"},
		{"wrong method", "POST", "/v1/generators/order/next", "", 405, wire.CodeMethodNotAllowed, "GET"},
		{"reserve not JSON", "POST", wire.PathReserve, "key=a", 400, wire.CodeInvalidArgument, "JSON"},
		{"reserve unknown field", "POST", wire.PathReserve, `{"key":"a","size":1,"step":2}`, 400, wire.CodeInvalidArgument, "step"},
		{"reserve two values", "POST", wire.PathReserve, `{"key":"a","size":1}{}`, 400, wire.CodeInvalidArgument, "after the value"},
		{"reserve size a string", "POST", wire.PathReserve, `{"key":"a","size":"1"}`, 400, wire.CodeInvalidArgument, "size"},
		{"reserve empty key", "POST", wire.PathReserve, `{"key":"","size":1}`, 400, wire.CodeInvalidArgument, "key is empty"},
		{"reserve size zero", "POST", wire.PathReserve, `{"key":"a","size":0}`, 400, wire.CodeInvalidArgument, "size 0"},
		{"reserve negative offset", "POST", wire.PathReserve, `{"key":"a","size":1,"initialOffset":-1}`, 400, wire.CodeInvalidArgument, "initialOffset"},
		{"reserve key too long", "POST", wire.PathReserve, `{"key":"` + strings.Repeat("k", 256) + `","size":1}`, 400, wire.CodeInvalidArgument, "256 bytes"},
		{"reserve wrong content type", "POST", wire.PathReserve, `{"key":"a","size":1}`, 415, wire.CodeUnsupportedMedia, "Content-Type"},
		{"reserve past MaxInt64", "POST", wire.PathReserve, `{"key":"full","size":1048576,"initialOffset":9223372036854000000}`, 409, wire.CodeExhausted, "full"},
		{"reserve body too large", "POST", wire.PathReserve, `{"key":"` + strings.Repeat("k", DefaultBodyLimit) + `"}`, 413, wire.CodeTooLarge, "limit"},
		{"seal empty key", "POST", wire.PathSeal, `{"key":""}`, 400, wire.CodeInvalidArgument, "key"},
		{"give back empty key", "POST", wire.PathGiveBack, `{"key":"","start":"1","end":"2"}`, 400, wire.CodeInvalidArgument, "key"},
		{"give back empty tail", "POST", wire.PathGiveBack, `{"key":"a","start":"5","end":"5"}`, 400, wire.CodeInvalidArgument, "5"},
		{"give back negative start", "POST", wire.PathGiveBack, `{"key":"a","start":"-1","end":"5"}`, 400, wire.CodeInvalidArgument, "-1"},
		{"give back a number, not a string", "POST", wire.PathGiveBack, `{"key":"a","start":1,"end":5}`, 400, wire.CodeInvalidArgument, "unquoted value"},
		{"give back unknown field", "POST", wire.PathGiveBack, `{"key":"a","start":"1","end":"5","size":4}`, 400, wire.CodeInvalidArgument, "size"},
		{"acquire bad ttl", "POST", wire.PathAcquire, `{"namespace":"ns","ownerKey":"o","limit":4,"ttl":"soon"}`, 400, wire.CodeInvalidArgument, "ttl"},
		{"acquire bad tolerance", "POST", wire.PathAcquire, `{"namespace":"ns","ownerKey":"o","limit":4,"ttl":"1s","tolerance":"1 sec"}`, 400, wire.CodeInvalidArgument, "tolerance"},
		{"acquire no limit", "POST", wire.PathAcquire, `{"namespace":"ns","ownerKey":"o","ttl":"1s"}`, 400, wire.CodeInvalidArgument, "Limit"},
		{"acquire no owner", "POST", wire.PathAcquire, `{"namespace":"ns","limit":4,"ttl":"1s"}`, 400, wire.CodeInvalidArgument, "OwnerKey"},
		{"acquire preferred out of range", "POST", wire.PathAcquire, `{"namespace":"ns","ownerKey":"o","limit":4,"ttl":"1s","preferred":4}`, 400, wire.CodeInvalidArgument, "Preferred"},
		{"renew bad ttl", "POST", wire.PathRenew, `{"lease":` + lease + `,"ttl":"x"}`, 400, wire.CodeInvalidArgument, "ttl"},
		{"renew no incarnation", "POST", wire.PathRenew, `{"lease":{"namespace":"ns","ownerKey":"o"},"ttl":"1s"}`, 400, wire.CodeInvalidArgument, "Incarnation"},
		{"renew unknown lease", "POST", wire.PathRenew, `{"lease":` + lease + `,"ttl":"1s"}`, 409, wire.CodeLeaseLost, "lease lost"},
		{"release unknown lease", "POST", wire.PathRelease, `{"lease":` + lease + `,"lastUsedMs":1}`, 409, wire.CodeLeaseLost, "lease lost"},
		{"release fence a string", "POST", wire.PathRelease, `{"lease":{"fence":"1"}}`, 400, wire.CodeInvalidArgument, "fence"},
		{"store route with GET", "GET", wire.PathReserve, "", 405, wire.CodeMethodNotAllowed, "POST"},
	}
	s := newServer(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := "application/json"
			if strings.Contains(tt.name, "content type") {
				ct = "text/plain"
			}
			status, h, body := do(t, s, tt.method, tt.target, tt.body, "Content-Type", ct)
			checkError(t, status, h, body, tt.status, tt.code, tt.mention)
		})
	}
}

func checkError(t *testing.T, status int, h http.Header, body string, wantStatus int, wantCode, mention string) {
	t.Helper()
	var e wire.Error
	if err := json.Unmarshal([]byte(body), &e); err != nil || h.Get("Content-Type") != "application/json" {
		t.Fatalf("answer %d %s %q is not a JSON error: %v", status, h.Get("Content-Type"), body, err)
	}
	if status != wantStatus || e.Code != wantCode {
		t.Errorf("got %d %s, want %d %s (%s)", status, e.Code, wantStatus, wantCode, e.Message)
	}
	if !strings.Contains(e.Message, mention) {
		t.Errorf("message %q does not mention %q", e.Message, mention)
	}
}

// TestErrors_Conflicts checks the 409s a working store gives.
func TestErrors_Conflicts(t *testing.T) {
	s := newServer(t, nil)
	req := `{"namespace":"c","ownerKey":"a","limit":1,"ttl":"1m"}`
	if status, _, body := do(t, s, "POST", wire.PathAcquire, req); status != 200 {
		t.Fatalf("first acquire: %d %s", status, body)
	}
	status, h, body := do(t, s, "POST", wire.PathAcquire, strings.Replace(req, `"a"`, `"b"`, 1))
	checkError(t, status, h, body, 409, wire.CodeNoFreeSlot, "slot")
	status, h, body = do(t, s, "POST", wire.PathAcquire, strings.Replace(req, `"limit":1`, `"limit":2`, 1))
	checkError(t, status, h, body, 409, wire.CodeNamespaceConflict, "limit")
	if status, _, body := do(t, s, "POST", wire.PathSeal, `{"key":"sealed"}`); status != 200 {
		t.Fatalf("seal: %d %s", status, body)
	}
	status, h, body = do(t, s, "POST", wire.PathReserve, `{"key":"sealed","size":1}`)
	checkError(t, status, h, body, 409, wire.CodeSealed, "sealed")
}

// TestErrors_StoreDownIs503 checks that a store that cannot answer gives 503 with
// Retry-After.
func TestErrors_StoreDownIs503(t *testing.T) {
	s := newServer(t, downStore{})
	for target, req := range map[string]string{wire.PathReserve: `{"key":"a","size":1}`, wire.PathSeal: `{"key":"a"}`,
		wire.PathAcquire: `{"namespace":"ns","ownerKey":"o","limit":4,"ttl":"1s"}`} {
		status, h, body := do(t, s, "POST", target, req)
		checkError(t, status, h, body, 503, wire.CodeUnavailable, "served store is unavailable")
		if h.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", target)
		}
	}
}

// TestErrors_NoStoreIs404 checks that a server without WithStore answers the store
// API with 404.
func TestErrors_NoStoreIs404(t *testing.T) {
	s := mustNew(t, openRuntime(t), WithLogger(nil))
	status, h, body := do(t, s, "POST", wire.PathReserve, `{"key":"a","size":1}`)
	checkError(t, status, h, body, 404, wire.CodeNotFound, "cosid.serve.store")
}

func TestWire_EveryCodeRoundTrips(t *testing.T) {
	for _, want := range []error{store.ErrInvalidArgument, store.ErrSealed, store.ErrExhausted, store.ErrNoFreeSlot, store.ErrLeaseLost, store.ErrNamespaceConflict} {
		status, code := wire.Classify(want)
		if err := wire.AsError(status, wire.Error{Code: code, Message: "m"}); !errorsIs(err, want) {
			t.Errorf("%v → %d %s → %v, want it to wrap the sentinel", want, status, code, err)
		}
	}
}

// TestErrors_GeneratorOnDownStoreIs503 serves a generator whose store (type http)
// points at a closed port: its ids answer 503 with Retry-After, naming the cause,
// and the other routes go on.
func TestErrors_GeneratorOnDownStoreIs503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  stores:
    remote: { type: http, url: "` + url + `", timeout: 1s }
  generators:
    order: { strategy: segment, store: remote, reserve-timeout: 1s }
    event: { strategy: snowflake, store: remote, owner-key: h }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	s := mustNew(t, rt, WithLogger(nil))
	for _, target := range []string{"/v1/generators/order/next", "/v1/generators/order/range", "/v1/generators/event/next"} {
		status, h, body := do(t, s, "GET", target, "")
		checkError(t, status, h, body, 503, wire.CodeUnavailable, "log has the details")
		if strings.Contains(body, "connection refused") {
			t.Errorf("%s: the 503 body tells the store's error: %s", target, body)
		}
		if h.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", target)
		}
	}
	if status, _, body := do(t, s, "GET", "/v1/generators", ""); status != 200 || strings.Count(body, `"state":"failing: `) != 2 {
		t.Errorf("inventory while the store is down: %d %s, want both generators failing", status, body)
	}
}
