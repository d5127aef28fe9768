package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// FuzzStoreAPI_Body posts any body to every route of the store API: the answer is
// 200 or a JSON error of a 4xx status, never a 5xx or a panic.
func FuzzStoreAPI_Body(f *testing.F) {
	for _, seed := range []string{
		`{"key":"a","size":1}`, `{"key":"a","size":1,"initialOffset":5}`, `{"key":""}`,
		`{"namespace":"n","ownerKey":"o","limit":2,"ttl":"1s","preferred":1}`,
		`{"lease":{"namespace":"n","ownerKey":"o","incarnation":"i","slot":0,"fence":1},"ttl":"1s"}`,
		`{"lease":{"namespace":"n","ownerKey":"o","incarnation":"i","slot":0,"fence":1},"lastUsedMs":9}`,
		`{"key":"a","size":9223372036854775807,"initialOffset":9223372036854775807}`, `[]`, `null`, `{"key":"\u0000"}`,
	} {
		f.Add(seed)
	}
	s := newServer(f, nil)
	paths := []string{wire.PathReserve, wire.PathSeal, wire.PathGiveBack, wire.PathAcquire, wire.PathRenew, wire.PathRelease}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range paths {
			status, _, got := do(t, s, "POST", path, body)
			if status == http.StatusOK {
				continue
			}
			var e wire.Error
			if err := json.Unmarshal([]byte(got), &e); err != nil || e.Code == "" || status >= 500 {
				t.Errorf("POST %s %q: %d %q", path, body, status, got)
			}
		}
	})
}

// FuzzCompat4x_Query sends any query to the 4.x machine and segment routes: the
// answer is 200 or a 4.x error body with a 4xx status.
func FuzzCompat4x_Query(f *testing.F) {
	for _, seed := range []string{
		"instanceId=a&stable=false&machineBit=3&safeGuardDuration=PT30S",
		"instanceId=a&stable=true&machineBit=1&safeGuardDuration=PT2562047788015215H30M7.807S",
		"offset=100&step=20", "step=5", "step=-1", "instanceId=&machineBit=99", "safeGuardDuration=P1D",
	} {
		f.Add(seed)
	}
	s := newServer(f, nil, WithCompat4x())
	f.Fuzz(func(t *testing.T, query string) {
		for _, route := range []string{"POST /machines/ns", "PATCH /machines/ns", "DELETE /machines/ns",
			"POST /segments/distributor/ns/name", "PATCH /segments/ns/name"} {
			method, path, _ := strings.Cut(route, " ")
			req := httptest.NewRequestWithContext(t.Context(), method, path, nil)
			req.URL.RawQuery = query // as sent, even where no client would send it
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			status, got := rec.Code, rec.Body.String()
			if status == http.StatusOK {
				continue
			}
			var e error4x
			if err := json.Unmarshal([]byte(got), &e); err != nil || e.Code == "" || status >= 500 {
				t.Errorf("%s?%s: %d %q", route, query, status, got)
			}
		}
	})
}

// FuzzHostOf checks that a Host header the loopback guard reads a host from has no
// port, or a port of digits after the host it returns.
func FuzzHostOf(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8686", "127.0.0.1:8686.evil.example", "[::1]:8686", "[::1]", "localhost", "a:b:c", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		host, ok := hostOf(hostport)
		if !ok || host == hostport {
			return
		}
		port, found := strings.CutPrefix(hostport, host+":")
		if !found {
			port, found = strings.CutPrefix(hostport, "["+host+"]:")
		}
		if !found || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
			t.Errorf("hostOf(%q) = %q: the rest is not a port of digits", hostport, host)
		}
	})
}
