package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestRequests_RefuseUnknownQueryParameters: a parameter a /v1 route does not take,
// misspelt or in another case, and a parameter without a value, are 400 naming it
// and the parameters the route takes, not an answer that ignores them; on the fast
// path of /next and through the mux alike.
func TestRequests_RefuseUnknownQueryParameters(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct{ target, mention string }{
		{"/v1/generators/order/next?cnt=5", `unknown query parameter \"cnt\"; want count, key`},
		{"/v1/generators/order/next?Count=5", `unknown query parameter \"Count\" (did you mean \"count\"? names are lower case); want count, key`},
		{"/v1/generators/order/next?foo=bar", `unknown query parameter \"foo\"; want count, key`},
		{"/v1/generators/order/next?count=", `the query parameter \"count\" is empty: give it a value, or leave out count`},
		{"/v1/generators/order/next?count", `the query parameter \"count\" is empty`},
		{"/v1/generators/order/next?count=2&cnt=5", `unknown query parameter \"cnt\"`},
		{"/v1/generators/ord%65r/next?cnt=5", `unknown query parameter \"cnt\"`}, // through the mux
		{"/v1/generators/order/range?cnt=5", `unknown query parameter \"cnt\"; want count, key`},
		{"/v1/generators/order/range?count=", `\"count\" is empty`},
		{"/v1/generators/order/decode?txt=1", `unknown query parameter \"txt\"; want key, text`},
		{"/v1/generators/order/decode?text=", `\"text\" is empty`},
		{"/v1/generators?verbose=1", `unknown query parameter \"verbose\": this route takes none`},
	}
	for _, tc := range tests {
		status, _, body := do(t, s, "GET", tc.target, "")
		if status != http.StatusBadRequest || !strings.Contains(body, tc.mention) {
			t.Errorf("GET %s = %d %s, want 400 saying %s", tc.target, status, body, tc.mention)
		}
	}
	for _, target := range []string{"/v1/generators/order/next?count=2", "/v1/generators/ord%65r/next?count=2", "/v1/generators/order/range?count=3", "/v1/generators/order/decode?text=7", "/v1/generators"} {
		if status, _, body := do(t, s, "GET", target, ""); status != http.StatusOK {
			t.Errorf("GET %s = %d %s, want 200", target, status, body)
		}
	}
}

// TestConnectJSON_RefusesUnknownFields: a Connect JSON body with a field the message
// does not have, misspelt or in another case, is refused naming it, on every
// service, as /v1 refuses it.
func TestConnectJSON_RefusesUnknownFields(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct{ path, body, field string }{
		{"/cosid.v1.IdService/Next", `{"name":"order","cnt":5}`, "cnt"},
		{"/cosid.v1.IdService/Next", `{"NAME":"order","count":2}`, "NAME"},
		{"/cosid.v1.StoreService/Reserve", `{"key":"k","size":1,"sise":2}`, "sise"},
		{"/grpc.health.v1.Health/Check", `{"service":"","x":1}`, "x"},
	}
	for _, tc := range tests {
		for _, ct := range []string{"application/json", "application/json; charset=utf-8"} {
			status, _, body := do(t, s, "POST", tc.path, tc.body, "Content-Type", ct)
			if status != http.StatusBadRequest || !strings.Contains(body, "invalid_argument") || !strings.Contains(body, `unknown field \"`+tc.field+`\"`) {
				t.Errorf("POST %s %s (%s) = %d %s, want 400 invalid_argument naming the field %q", tc.path, tc.body, ct, status, body, tc.field)
			}
		}
	}
	if status, _, body := do(t, s, "POST", "/cosid.v1.IdService/Next", `{"name":"order","count":2}`); status != http.StatusOK || !strings.Contains(body, `"ids"`) {
		t.Errorf("a known body = %d %s, want 200 with ids", status, body)
	}
}

// TestIDRoutes_MethodNotAllowedOffersGETOnly: a 405 of a route that hands out ids
// offers GET alone, in its Allow header and its message, as its HEAD is refused;
// other GET routes keep HEAD.
func TestIDRoutes_MethodNotAllowedOffersGETOnly(t *testing.T) {
	s := newServer(t, nil)
	for _, method := range []string{"HEAD", "POST", "DELETE"} {
		for _, target := range []string{"/v1/generators/order/next", "/v1/generators/ord%65r/next", "/v1/generators/order/range", "/ids/order"} {
			status, h, body := do(t, s, method, target, "")
			if status != http.StatusMethodNotAllowed || h.Get("Allow") != "GET" || (method != "HEAD" && !strings.Contains(body, "allowed: GET\"")) {
				t.Errorf("%s %s = %d, Allow %q, %s; want 405 offering GET alone", method, target, status, h.Get("Allow"), body)
			}
		}
	}
	if status, h, _ := do(t, s, "POST", "/v1/generators/order/decode", ""); status != http.StatusMethodNotAllowed || h.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /decode = %d, Allow %q; want 405 offering GET, HEAD", status, h.Get("Allow"))
	}
}
