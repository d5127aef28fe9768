package zkstore_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store/zkstore"
)

// FuzzEscape checks that a name's escaped form is one ZooKeeper path element of
// letters, digits, '-', '_' and %XX only (never "." or ".."), from which the name
// comes back: two names never share a znode.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"order", "a/b", ".", "..", "%41", "日付", "a b", "\x7f", "tck/ABC/S1/k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		e := zkstore.Escape(name)
		if strings.Trim(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_%") != "" {
			t.Fatalf("Escape(%q) = %q holds a byte it should have escaped", name, e)
		}
		back, err := url.PathUnescape(e)
		if err != nil || back != name {
			t.Fatalf("Escape(%q) = %q, which unescapes to %q, %v", name, e, back, err)
		}
	})
}

// FuzzParse checks that the parsers of znode data never panic, and that what they
// accept encodes back to data they read the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"next":5}`, `{"next":5,"sealed":true}`, `{"next":-1}`, `{"next":5} x`, `{"next":1e3}`,
		`{"limit":8,"toleranceMs":1000}`, `{"limit":0,"toleranceMs":0}`, `{"limit":8,"toleranceMs":1000,"x":1}`,
		`{"owner":"a","incarnation":"i","lastOwner":"a","fence":2,"expiresMs":9,"floorMs":1,"ceilingMs":10,"nextFloorMs":1}`,
		`{"owner":"a","fence":1,"expiresMs":0,"floorMs":0,"ceilingMs":0,"nextFloorMs":0}`, `{"fence":0}`, ``, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := zkstore.ParseValue(b); err == nil {
			roundTrip(t, v, zkstore.ParseValue)
		}
		if m, err := zkstore.ParseMeta(b); err == nil {
			roundTrip(t, m, zkstore.ParseMeta)
		}
		if r, err := zkstore.ParseRow(b); err == nil {
			roundTrip(t, r, zkstore.ParseRow)
		}
	})
}

// roundTrip checks that v, as JSON, parses back to v.
func roundTrip[T comparable](t *testing.T, v T, parse func([]byte) (T, error)) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := parse(b); err != nil || back != v {
		t.Fatalf("%+v does not parse back from %s: %+v, %v", v, b, back, err)
	}
}
