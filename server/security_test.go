package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/memstore"
)

// The tokens of roleServer's roles.
const (
	idsToken     = "ids-t0ken"
	storeToken   = "store-t0ken"
	adminToken   = "admin-t0ken"
	monitorToken = "monitor-t0ken"
)

func bearerOf(token string) []string { return []string{"Authorization", "Bearer " + token} }

// roleServer returns a server with a token of each role, on st (a new memstore when nil).
func roleServer(t *testing.T, st store.RangeStore, opts ...Option) *Server {
	t.Helper()
	return newServer(t, st, append([]Option{WithRoleToken(RoleIDs, idsToken), WithRoleToken(RoleStore, storeToken),
		WithRoleToken(RoleAdmin, adminToken), WithRoleToken(RoleMonitor, monitorToken)}, opts...)...)
}

// TestSecurity_H1_IdsTokenCannotCallAdmin checks that each route takes its role's
// token only: an id consumer's token neither calls the admin API nor the store API.
func TestSecurity_H1_IdsTokenCannotCallAdmin(t *testing.T) {
	s := roleServer(t, nil)
	routes := []struct {
		method, target, body string
		role                 string // whose token it takes
	}{
		{"GET", "/v1/generators/order/next", "", idsToken},
		{"GET", "/v1/generators/order/range", "", idsToken},
		{"GET", "/v1/generators", "", idsToken},
		{"GET", "/ids/order", "", idsToken},
		{"POST", wire.PathReserve, `{"key":"h1","size":1}`, storeToken},
		{"POST", wire.PathSeal, `{"key":"h1s"}`, storeToken},
		{"POST", wire.PathGiveBack, `{"key":"h1g","start":"1","end":"2"}`, storeToken},
		{"POST", wire.PathKeys, `{"prefix":"","limit":10}`, adminToken},
		{"POST", wire.PathRaise, `{"key":"h1r","next":"5"}`, adminToken},
		{"POST", wire.PathSlots, `{"namespace":"nope"}`, adminToken},
		{"GET", "/metrics", "", monitorToken},
		{"GET", "/", "", monitorToken},
	}
	for _, rt := range routes {
		for _, token := range []string{idsToken, storeToken, adminToken, monitorToken} {
			status, _, body := do(t, s, rt.method, rt.target, rt.body, bearerOf(token)...)
			switch {
			case token == rt.role && status == http.StatusUnauthorized:
				t.Errorf("%s %s with its own token: 401 %s", rt.method, rt.target, body)
			case token != rt.role && status != http.StatusUnauthorized:
				t.Errorf("%s %s with the %s token: %d %s, want 401", rt.method, rt.target, token, status, body)
			}
		}
	}
	if status, _, _ := do(t, s, "GET", "/healthz", ""); status != 200 {
		t.Errorf("/healthz without a token: %d, want 200", status)
	}
}

// TestSecurity_H1_RouteRoles checks the role of every route pattern, and that a
// route added later under /v1/store/ needs the store token, one of no known prefix
// the admin token.
func TestSecurity_H1_RouteRoles(t *testing.T) {
	tests := []struct {
		pattern string
		want    Role
	}{
		{"GET /healthz", roleOpen},
		{"GET /readyz", roleOpen},
		{"GET /metrics", RoleMonitor},
		{"GET /{$}", RoleMonitor},
		{patternNext, RoleIDs},
		{"GET /v1/generators", RoleIDs},
		{"GET /v1/generators/{name}/decode", RoleIDs},
		{"GET /ids/as-string/{name}", RoleIDs},
		{"POST " + wire.PathRelease, RoleStore},
		{"POST /v1/store/added-later", RoleStore},
		{"POST " + wire.PathLeaseOf, RoleAdmin},
		{"POST /v1/store/admin/added-later", RoleAdmin},
		{"DELETE /machines/{namespace}", roleOpen},
		{"PATCH /segments/{namespace}/{name}", roleOpen},
		{"GET /debug/added-later", RoleAdmin},
	}
	for _, tt := range tests {
		if got := routeRole(tt.pattern); got != tt.want {
			t.Errorf("routeRole(%q) = %s, want %s", tt.pattern, got, tt.want)
		}
	}
}

// TestSecurity_H1_AdminRoutesOnlyWithAdminToken checks that without an admin token
// the admin API is not served at all, and that Delete is never served.
func TestSecurity_H1_AdminRoutesOnlyWithAdminToken(t *testing.T) {
	open := newServer(t, nil)
	status, h, body := do(t, open, "POST", wire.PathKeys, `{"prefix":"","limit":10}`)
	checkError(t, status, h, body, 404, wire.CodeNotFound, "route")

	withAdmin := newServer(t, nil, WithRoleToken(RoleAdmin, adminToken))
	if status, _, body := do(t, withAdmin, "POST", wire.PathKeys, `{"prefix":"","limit":10}`, bearerOf(adminToken)...); status != 200 {
		t.Errorf("keys with the admin token: %d %s", status, body)
	}
	status, h, body = do(t, withAdmin, "POST", "/v1/store/admin/delete", `{"key":"k"}`, bearerOf(adminToken)...)
	checkError(t, status, h, body, 404, wire.CodeNotFound, "route")
}

// TestSecurity_H2_CrossSiteBlobPostRefused sends what a web page's
// fetch(…, {mode: "no-cors", body: new Blob([…])}) sends: no Content-Type, an
// Origin and Sec-Fetch-Site of another site. It is refused and seals nothing; a
// client that is no browser (4.x's, httpstore) is unaffected.
func TestSecurity_H2_CrossSiteBlobPostRefused(t *testing.T) {
	st := memstore.New()
	s := newServer(t, st, WithCompat4x())
	tests := []struct {
		name   string
		header []string
		status int
	}{
		{"cross-site page", []string{"Content-Type", "", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"}, 403},
		{"old browser, Origin only", []string{"Content-Type", "", "Origin", "http://evil.example"}, 403},
		{"same-site page", []string{"Content-Type", "", "Origin", "http://other.example.com", "Sec-Fetch-Site", "same-site"}, 403},
		{"text/plain form", []string{"Content-Type", "text/plain", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"}, 403},
		{"no browser, no type", []string{"Content-Type", ""}, 415},
	}
	for _, tt := range tests {
		status, _, body := do(t, s, "POST", wire.PathSeal, `{"key":"csrf/sealed"}`, tt.header...)
		if status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, status, body, tt.status)
		}
	}
	if _, err := st.Reserve(t.Context(), "csrf/sealed", 1, 0); err != nil {
		t.Fatalf("the key was sealed by a refused request: %v", err)
	}
	// A 4.x client sends neither Origin nor Sec-Fetch-Site.
	if status, _, body := do(t, s, "POST", "/machines/h2?instanceId=a&machineBit=4&safeGuardDuration=PT30S", ""); status != 200 {
		t.Errorf("a 4.x distribute: %d %s", status, body)
	}
	if status, _, body := do(t, s, "POST", wire.PathSeal, `{"key":"csrf/sealed"}`); status != 200 {
		t.Errorf("a plain JSON seal: %d %s", status, body)
	}
}

// TestSecurity_H2_BodyMustBeJSON checks the Content-Type of a request body: the
// media type application/json exactly, parameters allowed.
func TestSecurity_H2_BodyMustBeJSON(t *testing.T) {
	s := newServer(t, nil)
	for ct, want := range map[string]int{
		"application/json": 200, "application/json; charset=utf-8": 200, "Application/JSON": 200,
		"": 415, "application/jsonfoo": 415, "text/plain": 415, "application/x-www-form-urlencoded": 415,
		"multipart/form-data; boundary=x": 415, "application/json;;": 415,
	} {
		status, h, body := do(t, s, "POST", wire.PathReserve, `{"key":"h2ct","size":1}`, "Content-Type", ct)
		if status != want {
			t.Errorf("Content-Type %q: %d %s, want %d", ct, status, body, want)
		}
		if status == 415 {
			checkError(t, status, h, body, 415, wire.CodeUnsupportedMedia, "Content-Type")
		}
	}
}

// TestSecurity_H2_LoopbackRefusesForeignHost checks the Host check of a server
// bound to loopback (DNS rebinding: evil.example resolving to 127.0.0.1), and that
// a server on every address does not make it.
func TestSecurity_H2_LoopbackRefusesForeignHost(t *testing.T) {
	s := newServer(t, nil, WithAllowedHosts("ids.internal"))
	loop := s.HTTPServer("127.0.0.1:8686").Handler
	for host, want := range map[string]int{
		"evil.example": 403, "evil.example:8686": 403, "127.0.0.1.evil.example": 403, "": 403,
		"127.0.0.1:8686.evil.example": 403, "localhost:1.evil.example": 403, "[::1]:x": 403, "127.0.0.1:123456": 403,
		"127.0.0.1:":     200,
		"127.0.0.1:8686": 200, "localhost:8686": 200, "LOCALHOST": 200, "app.localhost:1": 200,
		"[::1]:8686": 200, "127.1.2.3": 200, "ids.internal:8686": 200, "IDS.internal": 200,
	} {
		req := httptest.NewRequestWithContext(t.Context(), "GET", "/v1/generators", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		loop.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d %s, want %d", host, rec.Code, rec.Body.String(), want)
		}
	}
	// The guard remembers the Host it answered last: a foreign one right after it is
	// still refused.
	for _, host := range []string{"evil.example", "evil.example:8686", "127.0.0.1.evil.example", "localhost.evil.example:8686", "127.0.0.1:8686.evil.example", ""} {
		for i, h := range []string{"127.0.0.1:8686", host, "127.0.0.1:8686", host} {
			req := httptest.NewRequestWithContext(t.Context(), "GET", "/v1/generators", nil)
			req.Host = h
			rec := httptest.NewRecorder()
			loop.ServeHTTP(rec, req)
			if want := map[bool]int{true: 200, false: 403}[i%2 == 0]; rec.Code != want {
				t.Errorf("Host %q after 127.0.0.1:8686: %d, want %d", h, rec.Code, want)
			}
		}
	}
	req := httptest.NewRequestWithContext(t.Context(), "GET", "/v1/generators", nil)
	req.Host = "evil.example"
	rec := httptest.NewRecorder()
	s.HTTPServer(":8686").Handler.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("a server on every address, Host evil.example: %d, want 200", rec.Code)
	}
}

// TestSecurity_M2_AuditLogsAdminAndStoreCalls checks that every admin call, store
// mutation and 4.x machine call logs one line with its route, role, remote address,
// arguments and outcome, and hides a lease's incarnation.
func TestSecurity_M2_AuditLogsAdminAndStoreCalls(t *testing.T) {
	var mu sync.Mutex
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &log}, nil))
	s := newServer(t, nil, WithToken("s3cret"), WithLogger(logger), WithCompat4x())
	auth := bearerOf("s3cret")
	calls := []struct{ method, target, body, want string }{
		{"POST", wire.PathRaise, `{"key":"m2","next":"9"}`, `route="POST /v1/store/admin/raise" role=admin remote=192.0.2.1:1234 body="{\"key\":\"m2\",\"next\":\"9\"}" status=200 outcome=ok`},
		{"POST", wire.PathSeal, `{"key":"m2"}`, `route="POST /v1/store/seal" role=store`},
		{"POST", wire.PathReserve, `{"key":"m2","size":1}`, `route="POST /v1/store/reserve" role=store remote=192.0.2.1:1234 body="{\"key\":\"m2\",\"size\":1}" status=409 outcome=`},
		{"POST", wire.PathRelease, `{"lease":{"namespace":"n","ownerKey":"o","incarnation":"SECRET","slot":0,"fence":1},"lastUsedMs":1}`, `route="POST /v1/store/release" role=store`},
		{"DELETE", "/machines/m2?instanceId=x", "", `route="DELETE /machines/{namespace}" role=open remote=192.0.2.1:1234 query="instanceId=x" status=200 outcome=ok`},
		{"POST", wire.PathKeys, `{"prefix":"m","limit":5}`, `route="POST /v1/store/admin/keys" role=admin`},
	}
	for _, c := range calls {
		do(t, s, c.method, c.target, c.body, auth...)
	}
	mu.Lock()
	out := log.String()
	mu.Unlock()
	for _, c := range calls {
		if !strings.Contains(out, c.want) {
			t.Errorf("the log lacks %s:\n%s", c.want, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("the log holds a lease's incarnation:\n%s", out)
	}
	if n := strings.Count(out, "cosid audit"); n != len(calls) {
		t.Errorf("%d audit lines for %d calls:\n%s", n, len(calls), out)
	}
	do(t, s, "GET", "/v1/generators/order/next", "", auth...)
	if strings.Count(log.String(), "cosid audit") != len(calls) {
		t.Error("a request for ids is in the audit log: it is no store mutation")
	}
	do(t, s, "POST", wire.PathRaise, `{"key":"m2","next":"99"}`, bearerOf("guess")...)
	if want := `route="POST /v1/store/admin/raise" role=admin remote=192.0.2.1:1234 body="" status=401`; !strings.Contains(log.String(), want) {
		t.Errorf("a refused admin call is not in the audit log as %s:\n%s", want, log.String())
	}
}

// TestSecurity_M4_IdResponsesNoStore checks that no answer that carries ids may be
// cached.
func TestSecurity_M4_IdResponsesNoStore(t *testing.T) {
	s := newServer(t, nil)
	for _, target := range []string{"/v1/generators/order/next", "/v1/generators/order/range?count=2",
		"/ids/order", "/ids/as-string/code", "/v1/generators/nope/next"} {
		status, h, body := do(t, s, "GET", target, "")
		if h.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d %s with Cache-Control %q, want no-store", target, status, body, h.Get("Cache-Control"))
		}
	}
	status, h, _ := do(t, s, "POST", wire.PathReserve, `{"key":"m4","size":3}`)
	if status != 200 || h.Get("Cache-Control") != "no-store" {
		t.Errorf("reserve: %d, Cache-Control %q", status, h.Get("Cache-Control"))
	}
}

// TestSecurity_M4_HeadTakesNoID checks that a HEAD of a route that hands out ids is
// refused and takes none.
func TestSecurity_M4_HeadTakesNoID(t *testing.T) {
	s := newServer(t, nil)
	for _, target := range []string{"/v1/generators/order/next", "/v1/generators/order/range", "/ids/order", "/ids/as-string/order"} {
		status, h, body := do(t, s, "HEAD", target, "")
		if status != 405 || h.Get("Allow") != "GET" {
			t.Errorf("HEAD %s: %d (Allow %q) %s, want 405", target, status, h.Get("Allow"), body)
		}
	}
	if _, _, body := do(t, s, "GET", "/v1/generators/order/next", ""); body != "1\n" {
		t.Errorf("the first id after the HEADs = %q, want 1: a HEAD took ids", body)
	}
}

// TestSecurity_L4_UnavailableHidesStoreDetails checks that a 503 and /readyz name the
// store that failed, not what its error says (host, user, database), which goes to
// the log.
func TestSecurity_L4_UnavailableHidesStoreDetails(t *testing.T) {
	secret := errors.New("failed to connect to user=postgres database=test: 10.1.2.3:5432")
	var log bytes.Buffer
	var mu sync.Mutex
	s := newServer(t, failing{err: secret}, WithCompat4x(), WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &log}, nil))),
		WithReadiness("store db", func(*http.Request) error { return secret }))
	for _, c := range []struct{ method, target, body string }{
		{"POST", wire.PathReserve, `{"key":"l4","size":1}`}, {"GET", "/readyz", ""}, {"PATCH", "/segments/l4/x?step=5", ""},
	} {
		target := c.target
		status, _, got := do(t, s, c.method, c.target, c.body)
		if status != 503 || strings.Contains(got, "10.1.2.3") || strings.Contains(got, "postgres") {
			t.Errorf("%s: %d %s, want a 503 that tells neither host nor user", target, status, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), "10.1.2.3") {
		t.Errorf("the log lacks the store's error:\n%s", log.String())
	}
}

// failing is a store whose reservations fail with err.
type failing struct {
	downStore
	err error
}

func (f failing) Reserve(context.Context, string, int64, int64) (store.Range, error) {
	return store.Range{}, f.err
}

// TestSecurity_L6_BearerSchemeCaseInsensitive checks that the scheme matches in any
// case (RFC 7235), and the token exactly.
func TestSecurity_L6_BearerSchemeCaseInsensitive(t *testing.T) {
	s := newServer(t, nil, WithToken("s3cret"))
	for header, want := range map[string]int{
		"Bearer s3cret": 200, "bearer s3cret": 200, "BEARER s3cret": 200, "bEaReR s3cret": 200,
		"Bearer S3CRET": 401, "Bearer  s3cret": 401, "Bearers3cret": 401, "Token s3cret": 401, "Bearer": 401,
	} {
		if status, _, body := do(t, s, "GET", "/v1/generators/order/next", "", "Authorization", header); status != want {
			t.Errorf("Authorization %q: %d %s, want %d", header, status, body, want)
		}
	}
}

// TestSecurity_L6_BadTokenIsAnError checks that New refuses a token that would turn
// auth off or that no client could send.
func TestSecurity_L6_BadTokenIsAnError(t *testing.T) {
	rt := openRuntime(t)
	for _, opt := range []Option{WithToken(""), WithToken("two words"), WithToken("line\nbreak"), WithRoleToken(RoleAdmin, ""), WithRoleToken(Role(9), "x"),
		WithToken(strings.Repeat("x", maxTokenLen+1))} {
		if s, err := New(rt, opt); err == nil || s != nil {
			t.Errorf("New with a bad token = %v, %v; want an error", s, err)
		}
	}
}

// TestSecurity_L6_StatusPageBasicAuth checks that a browser reaches the status page
// with the monitor token as an HTTP Basic password, after a Basic challenge.
func TestSecurity_L6_StatusPageBasicAuth(t *testing.T) {
	s := roleServer(t, nil)
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	status, h, _ := do(t, s, "GET", "/", "")
	if status != 401 || !strings.Contains(strings.Join(h.Values("WWW-Authenticate"), ","), "Basic") {
		t.Errorf("/ without credentials: %d, WWW-Authenticate %q; want 401 with a Basic challenge", status, h.Values("WWW-Authenticate"))
	}
	for _, tt := range []struct {
		target, auth string
		want         int
	}{
		{"/", basic("", monitorToken), 200},
		{"/", basic("ops", monitorToken), 200},
		{"/", basic("ops", idsToken), 401},
		{"/", "Basic !!!", 401},
		{"/metrics", basic("", monitorToken), 404},   // past the token: this server serves no metrics
		{"/v1/generators", basic("", idsToken), 401}, // Basic is for the monitor role only
	} {
		if status, _, body := do(t, s, "GET", tt.target, "", "Authorization", tt.auth); status != tt.want {
			t.Errorf("GET %s with %q: %d %s, want %d", tt.target, tt.auth, status, body, tt.want)
		}
	}
}

// TestSecurity_L7_StrictRequests checks that a request that the old parsing would
// have half understood is refused with a 400 that says what was wrong.
func TestSecurity_L7_StrictRequests(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct{ name, method, target, body, mention string }{
		{"field in another case", "POST", wire.PathReserve, `{"KEY":"l7","Size":5}`, `did you mean "key"`},
		{"duplicate key", "POST", wire.PathReserve, `{"key":"l7","size":5,"size":6}`, `"size" is given twice`},
		{"nested other case", "POST", wire.PathRelease, `{"lease":{"Namespace":"n"},"lastUsedMs":1}`, `lease: unknown field "Namespace"`},
		{"semicolon pair", "GET", "/v1/generators/order/next?count=5;x=1", "", "';'"},
		{"count twice", "GET", "/v1/generators/order/next?count=5&count=99999", "", `"count" is given 2 times`},
		{"range count twice", "GET", "/v1/generators/order/range?count=5&count=1", "", "given 2 times"},
		{"4.x parameter twice", "GET", "/ids/order?x=1&x=2", "", "given 2 times"},
		{"bad escape", "GET", "/v1/generators/order/range?count=%zz", "", "query"},
	}
	for _, tt := range tests {
		status, h, body := do(t, s, tt.method, tt.target, tt.body)
		checkError(t, status, h, body, 400, wire.CodeInvalidArgument, tt.mention)
	}
}

// TestSecurity_L8_ErrorFormat checks the answers the mux used to give: an unclean
// path is a JSON 400 naming the clean one, and a 405 names the method.
func TestSecurity_L8_ErrorFormat(t *testing.T) {
	s := newServer(t, nil)
	status, h, body := do(t, s, "GET", "/v1/generators/../next", "")
	checkError(t, status, h, body, 400, wire.CodeInvalidArgument, `ask for "/v1/next"`)
	status, h, body = do(t, s, "GET", "//v1/generators/order/next", "")
	checkError(t, status, h, body, 400, wire.CodeInvalidArgument, "not clean")
	status, h, body = do(t, s, "POST", "/healthz", "")
	checkError(t, status, h, body, 405, wire.CodeMethodNotAllowed, "method POST not allowed; allowed: GET, HEAD")
	// With a token, neither tells a caller without one anything.
	tok := newServer(t, nil, WithToken("s3cret"))
	for _, target := range []string{"//v1/x", "/nope"} {
		status, h, body := do(t, tok, "GET", target, "")
		checkError(t, status, h, body, 401, wire.CodeUnauthorized, "token")
	}
}

// TestSecurity_L9_ReadinessAtMostOncePerSecond checks that /readyz and the status
// page run each check at most once a second, however often they are asked.
func TestSecurity_L9_ReadinessAtMostOncePerSecond(t *testing.T) {
	var mu sync.Mutex
	runs := 0
	s := newServer(t, nil, WithReadiness("db", func(*http.Request) error {
		mu.Lock()
		defer mu.Unlock()
		runs++
		return nil
	}))
	clock := time.Unix(1e9, 0)
	s.now = func() time.Time { return clock }
	for range 20 {
		do(t, s, "GET", "/readyz", "")
		do(t, s, "GET", "/", "")
	}
	clock = clock.Add(readyEvery - time.Nanosecond)
	do(t, s, "GET", "/readyz", "")
	if runs != 1 {
		t.Errorf("%d runs within a second, want 1", runs)
	}
	clock = clock.Add(time.Nanosecond)
	do(t, s, "GET", "/readyz", "")
	if runs != 2 {
		t.Errorf("%d runs after a second, want 2", runs)
	}
}

// TestSecurity_L9_ChecksRunAtOnce checks that the checks run at the same time, not
// one after another: each waits until both have started.
func TestSecurity_L9_ChecksRunAtOnce(t *testing.T) {
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	wait := func(*http.Request) error {
		started <- struct{}{}
		<-release
		return nil
	}
	s := newServer(t, nil, WithReadiness("a", wait), WithReadiness("b", wait))
	done := make(chan int)
	go func() {
		status, _, _ := do(t, s, "GET", "/readyz", "")
		done <- status
	}()
	for range 2 {
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			close(release)
			t.Fatal("the second check did not start while the first ran: the checks run one after another")
		}
	}
	close(release)
	if status := <-done; status != 200 {
		t.Errorf("/readyz: %d", status)
	}
}

// TestSecurity_L9_ReadyzAnonymousOnlyReady checks that a caller without the monitor
// token learns only whether the server is ready.
func TestSecurity_L9_ReadyzAnonymousOnlyReady(t *testing.T) {
	s := roleServer(t, nil, WithReadiness("store db", func(*http.Request) error { return nil }))
	if status, _, body := do(t, s, "GET", "/readyz", ""); status != 200 || strings.TrimSpace(body) != `{"ready":true}` {
		t.Errorf("/readyz without a token: %d %s, want only ready", status, body)
	}
	if _, _, body := do(t, s, "GET", "/readyz", "", bearerOf(monitorToken)...); !strings.Contains(body, `"store db":"ok"`) {
		t.Errorf("/readyz with the monitor token: %s, want the checks", body)
	}
}

// TestSecurity_L5_HandshakeErrorsRateLimited checks that the error log writes a TLS
// handshake error at most once every handshakeEvery, with a count of those left out,
// and every other line.
func TestSecurity_L5_HandshakeErrorsRateLimited(t *testing.T) {
	var log bytes.Buffer
	clock := time.Unix(1e9, 0)
	l := newErrorLog(slog.New(slog.NewTextHandler(&log, nil)), func() time.Time { return clock })
	for i := range 100 {
		l.Printf("http: TLS handshake error from 192.0.2.1:%d: EOF", i)
	}
	l.Printf("http: Accept error: too many open files")
	clock = clock.Add(handshakeEvery)
	l.Printf("http: TLS handshake error from 192.0.2.1:7: EOF")
	out := log.String()
	if n := strings.Count(out, "TLS handshake error"); n != 2 {
		t.Errorf("%d handshake lines, want 2:\n%s", n, out)
	}
	if !strings.Contains(out, "left-out=99") || !strings.Contains(out, "Accept error") {
		t.Errorf("the log lacks the count left out or another line:\n%s", out)
	}
}

// lockedWriter serializes the writes of a log shared by handlers.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
