package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// FuzzKeyedNext_Query sends any query to /next and /range of a keyed generator and
// of one that is not: the answer is 200 only for a key that cosid.CheckKey accepts,
// given once to the keyed one (and none to the other), and otherwise a 4xx, never a
// 5xx.
func FuzzKeyedNext_Query(f *testing.F) {
	for _, seed := range []string{"key=acme", "key=acme&count=3", "count=2&key=a%2Fb", "key=", "key=a&key=b", "key=..",
		"key=%C3%BC", "key=a;count=2", "count=0&key=x", "key=" + strings.Repeat("k", 129), "count=10001&key=k", ""} {
		f.Add(seed)
	}
	s, _ := newKeyedServer(f)
	f.Fuzz(func(t *testing.T, query string) {
		values, _ := url.ParseQuery(query) // what parses of it: the server leaves out the rest, as ParseQuery does
		for _, target := range []string{"/v1/generators/tenant/next", "/v1/generators/tenant/range", "/v1/generators/order/next"} {
			req := httptest.NewRequestWithContext(t.Context(), "GET", target, nil)
			req.URL.RawQuery = query // as sent, even where no client would send it
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			keys := values["key"]
			keyed := !strings.Contains(target, "order")
			valid := len(keys) == 1 && cosid.CheckKey(keys[0]) == nil
			if !keyed {
				valid = len(keys) == 0
			}
			switch {
			case rec.Code >= 500:
				t.Errorf("GET %s?%s: %d %s", target, query, rec.Code, rec.Body)
			case rec.Code == http.StatusOK && !valid:
				t.Errorf("GET %s?%s: 200 for the keys %q", target, query, keys)
			}
		}
	})
}
