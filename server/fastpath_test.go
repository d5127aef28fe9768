package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzOnePair checks onePair against url.ParseQuery: a query it reads is one that
// ParseQuery reads as that one parameter with that one value.
func FuzzOnePair(f *testing.F) {
	for _, seed := range []string{
		"", "count=5", "count=5&count=6", "a=1&count=2", "&count=3", "count=5&", "count",
		"count=", "count=%35", "c%6Funt=7", "count=1+2", "count+=1", "count=%zz", "count=%",
		"%=1", ";count=1", "count=1;x", "count=1;x&count=2", "count==1", "=count", "COUNT=1",
		"a b=1", "a+b=1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		k, v, ok := onePair(raw)
		if !ok {
			return
		}
		values, err := url.ParseQuery(raw)
		if err != nil || len(values) != 1 || len(values[k]) != 1 || values[k][0] != v {
			t.Errorf("onePair(%q) = %q, %q; url.ParseQuery has %v, %v", raw, k, v, values, err)
		}
	})
}

// FuzzNextName checks nextName against the mux: a request that it takes is one that
// the mux routes to patternNext, with the same name.
func FuzzNextName(f *testing.F) {
	for _, seed := range []struct{ method, target string }{
		{"GET", "/v1/generators/order/next"}, {"HEAD", "/v1/generators/order/next"},
		{"POST", "/v1/generators/order/next"}, {"get", "/v1/generators/order/next"},
		{"GET", "/v1/generators/./next"}, {"GET", "/v1/generators/../next"},
		{"GET", "/v1/generators/a/../order/next"}, {"GET", "/v1/generators//next"},
		{"GET", "/v1/generators/a/b/next"}, {"GET", "/v1/generators/ord%65r/next"},
		{"GET", "/v1/generators/a%2Fb/next"}, {"GET", "/v1/generators/a;b/next?count=2"},
		{"GET", "/v1/generators/order/next/"}, {"GET", "/v1/gener%61tors/order/next"},
		{"GET", "/v1/generators/order/nex%74"}, {"GET", "/v1/generators/..a/next"},
		{"GET", "//v1/generators/order/next"}, {"GET", "/v1/generators/order/next?x=/"},
		{"CONNECT", "/v1/generators/order/next"}, {"GET", "*"}, {"GET", "/v1/generators/order"},
	} {
		f.Add(seed.method, seed.target)
	}
	s := newServer(f, nil)
	f.Fuzz(func(t *testing.T, method, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		// As the server parses it, and as a caller may build it: a path with no
		// RawPath, whatever it holds.
		for _, u := range []*url.URL{u, {Path: u.Path, RawQuery: u.RawQuery}} {
			req := &http.Request{Method: method, URL: u, RequestURI: target, Host: "example.com",
				Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Body: http.NoBody}
			name, ok := nextName(req)
			if !ok {
				continue
			}
			s.mux.ServeHTTP(httptest.NewRecorder(), req)
			if req.Pattern != patternNext || req.PathValue("name") != name {
				t.Errorf("%s %q (path %q, raw path %q): nextName takes it as %q; the mux routes it to %q with name %q",
					method, target, u.Path, u.RawPath, name, req.Pattern, req.PathValue("name"))
			}
		}
	})
}

func TestNextName_TakesPlainPaths(t *testing.T) {
	tests := []struct {
		method, target string
		want           string
		wantOK         bool
	}{
		{"GET", "/v1/generators/order/next", "order", true},
		{"HEAD", "/v1/generators/order/next?count=3", "", false}, // the mux refuses it: a HEAD takes no id,
		{"GET", "/v1/generators/a.b_c-d~9/next", "a.b_c-d~9", true},
		{"GET", "/v1/generators/a;b/next", "", false},   // left to the mux
		{"GET", "/v1/generators/a%3Bb/next", "", false}, // the mux unescapes it
		{"POST", "/v1/generators/order/next", "", false},
		{"GET", "/v1/generators/ord%65r/next", "", false}, // the mux unescapes it
		{"GET", "/v1/generators/../next", "", false},      // the mux redirects it
		{"GET", "/v1/generators/order/range", "", false},
	}
	for _, tt := range tests {
		got, ok := nextName(httptest.NewRequest(tt.method, tt.target, nil))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("nextName(%s %s) = %q, %v, want %q, %v", tt.method, tt.target, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestServeHTTP_RoutesAsTheMux checks the answers that depend on how a request was
// routed: a path the mux unescapes, an unclean one, and the route
// that the metrics of a refused request name.
func TestServeHTTP_RoutesAsTheMux(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, method, target string
		wantStatus           int
		wantHeader, wantIn   string
	}{
		{"escaped name", "GET", "/v1/generators/ord%65r/next", 200, "Content-Type", "text/plain"},
		{"head", "HEAD", "/v1/generators/order/next", 405, "Allow", "GET"},
		// An unclean path is answered a JSON error naming the clean one, not redirected.
		{"unclean path", "GET", "/v1/generators/x/../order/next", 400, "Content-Type", "application/json"},
		{"unclean unknown path", "GET", "/v2//x", 400, "Content-Type", "application/json"},
		{"trailing slash", "GET", "/v1/generators/order/next/", 404, "Content-Type", "application/json"},
	}
	for _, tt := range tests {
		status, h, _ := do(t, s, tt.method, tt.target, "")
		if status != tt.wantStatus || !strings.Contains(h.Get(tt.wantHeader), tt.wantIn) {
			t.Errorf("%s: %s %s = %d, %s %q; want %d with %q", tt.name, tt.method, tt.target, status,
				tt.wantHeader, h.Get(tt.wantHeader), tt.wantStatus, tt.wantIn)
		}
	}
}

// TestMetrics_RefusedRequestNamesItsRoute checks that a request refused for its token
// is counted under the route it asked for, which the mux did not serve.
func TestMetrics_RefusedRequestNamesItsRoute(t *testing.T) {
	s := newMetricsServer(t, WithToken("s3cret"))
	do(t, s, "GET", "/v1/generators/order/next", "")
	do(t, s, "GET", "/nowhere", "")
	do(t, s, "GET", "/v1/generators/ord%65r/next", "", "Authorization", "Bearer s3cret")
	checkMetrics(t, s, []string{
		`cosid_http_requests_total{code="401",route="GET /v1/generators/{name}/next"} 1`,
		`cosid_http_requests_total{code="401",route="unmatched"} 1`,
		`cosid_http_requests_total{code="200",route="GET /v1/generators/{name}/next"} 1`,
	}, "Authorization", "Bearer s3cret")
}
