package httpstore_test

import (
	"testing"

	"github.com/cosid-go/cosid/store/httpstore"
)

// newStore is a store of the server at url. The tests against a real server (the
// server module) are in integration/httpstore.
func newStore(t *testing.T, url string, opts ...httpstore.Option) *httpstore.Store {
	t.Helper()
	st, err := httpstore.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
