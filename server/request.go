package server

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/storekit"
)

// decodeBody decodes the JSON body of r into v: Content-Type application/json (a
// web page cannot send that cross-site without a preflight, which this server never
// answers), one object, no unknown fields, field names exactly as the API spells
// them, no key twice.
func decodeBody(r *http.Request, v any) error {
	if err := checkJSONType(r.Header.Get("Content-Type")); err != nil {
		return err
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return badRequest("reading the body: %v", err)
	}
	if err := storekit.DecodeExact(b, v); err != nil {
		return badRequest("the body is not the JSON this route takes: %v", err)
	}
	return nil
}

// checkJSONType refuses a Content-Type that is not application/json, parameters
// (charset=utf-8) aside: 415, saying what to send.
func checkJSONType(ct string) error {
	if ct == "" {
		return &apiError{http.StatusUnsupportedMediaType, wire.CodeUnsupportedMedia,
			"the Content-Type header is missing: want Content-Type: application/json"}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return &apiError{http.StatusUnsupportedMediaType, wire.CodeUnsupportedMedia,
			fmt.Sprintf("the Content-Type header is %q: want application/json", ct)}
	}
	return nil
}

// checkQuery refuses a query that url.ParseQuery would read otherwise than its
// sender meant: a ';' (ParseQuery drops the pair), a pair that does not unescape,
// or a parameter given twice (one of them would be ignored). With strict, the
// route's declared parameters (routeParams), it also refuses a parameter not in
// allowed, misspelt (cnt) or in another case (Count), and one without a value: the
// route would ignore either, and serve another count or key than the one meant. It
// returns the parsed query.
func checkQuery(raw string, allowed []string, strict bool) (url.Values, error) {
	if raw == "" {
		return nil, nil
	}
	if strings.IndexByte(raw, ';') >= 0 {
		return nil, badRequest("the query has a ';': separate parameters with '&'")
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return nil, badRequest("the query: %v", err)
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v := values[k]
		switch {
		case len(v) > 1:
			return nil, badRequest("the query parameter %q is given %d times: give it once", k, len(v))
		case !strict:
		case !slices.Contains(allowed, k):
			return nil, unknownParam(k, allowed)
		case v[0] == "" && k == "key":
			return nil, emptyKey()
		case v[0] == "":
			return nil, badRequest("the query parameter %q is empty: give it a value, or leave out %s", k, k)
		}
	}
	return values, nil
}

// unknownParam is the error of a query parameter k that a route does not take.
func unknownParam(k string, allowed []string) error {
	if len(allowed) == 0 {
		return badRequest("unknown query parameter %q: this route takes none", k)
	}
	hint := ""
	for _, a := range allowed {
		if strings.EqualFold(a, k) {
			hint = fmt.Sprintf(" (did you mean %q? names are lower case)", a)
		}
	}
	return badRequest("unknown query parameter %q%s; want %s", k, hint, strings.Join(allowed, ", "))
}
