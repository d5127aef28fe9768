package server

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// patternNext is the route of ids, the hot one: ServeHTTP matches its plain paths
// itself, as the mux would, without the mux's slice of path values.
const patternNext = "GET /v1/generators/{name}/next"

// nextName returns the {name} of patternNext when the mux would route r to it with
// that name: a GET of the clean path /v1/generators/{name}/next (a HEAD goes to the
// mux, which refuses it: it would take ids and drop them). A path with
// an escape in it is left to the mux, which unescapes a segment before it matches it,
// and so is an unclean one, which the mux redirects.
func nextName(r *http.Request) (string, bool) {
	if r.Method != http.MethodGet {
		return "", false
	}
	if r.URL.RawPath == "" {
		// The path escapes to itself where the name is of unreserved characters
		// only, so it is the path that the mux matches, without escaping it.
		name, ok := nextSegment(r.URL.Path)
		for i := range len(name) {
			if !unreserved(name[i]) {
				return "", false
			}
		}
		return name, ok
	}
	name, ok := nextSegment(r.URL.EscapedPath())
	for i := range len(name) {
		if name[i] == '%' {
			return "", false
		}
	}
	return name, ok
}

// nextSegment returns the segment {name} of a path /v1/generators/{name}/next: not
// empty, no '/' in it, and not "." or "..", which path cleaning would remove.
func nextSegment(path string) (string, bool) {
	name, ok := strings.CutPrefix(path, "/v1/generators/")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, "/next")
	if !ok || name == "" || name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 {
		return "", false
	}
	return name, true
}

// unreserved reports whether c is an unreserved character of RFC 3986, which a URL
// never escapes.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// onePair returns the name and value of a query of one pair, unescaped, as
// url.ParseQuery reads them; ok is false for any other query, which goes to
// ParseQuery (whose limit on the number of pairs GODEBUG=urlmaxqueryparams may
// lower): it reads the usual query of /next without ParseQuery's map.
func onePair(raw string) (k, v string, ok bool) {
	if raw == "" || strings.ContainsAny(raw, "&;") || !onePairParses() {
		return "", "", false
	}
	k, v, _ = strings.Cut(raw, "=")
	if k, ok = queryUnescape(k); !ok {
		return "", "", false
	}
	v, ok = queryUnescape(v)
	return k, v, ok
}

// onePairParses reports whether url.ParseQuery takes a query of one pair, which
// GODEBUG=urlmaxqueryparams=1 forbids.
var onePairParses = sync.OnceValue(func() bool {
	_, err := url.ParseQuery("k")
	return err == nil
})

// queryUnescape is url.QueryUnescape, without its work where s has nothing to
// unescape.
func queryUnescape(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}
