package httpstore_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store/httpstore"
)

// seenTransport answers every request itself, and keeps it.
type seenTransport struct{ seen []*http.Request }

func (s *seenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.seen = append(s.seen, r)
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"code":"unavailable","message":"down"}`)), Request: r}, nil
}

func TestSetTransportWrapper_WrapsTheTransportOfLaterStores(t *testing.T) {
	var wrapped []http.RoundTripper
	seen := &seenTransport{}
	httpstore.SetTransportWrapper(func(rt http.RoundTripper) http.RoundTripper {
		wrapped = append(wrapped, rt)
		return seen
	})
	t.Cleanup(func() { httpstore.SetTransportWrapper(nil) })
	st := newStore(t, "http://127.0.0.1:1", httpstore.WithToken("s3cret"))
	_, err := st.Reserve(t.Context(), "app/order", 10, 1)
	if err == nil || !strings.Contains(err.Error(), "down") {
		t.Fatalf("Reserve through the wrapper: %v, want the wrapper's answer", err)
	}
	if len(wrapped) != 1 || wrapped[0] == nil {
		t.Fatalf("the wrapper wrapped %v, want the store's own transport once", wrapped)
	}
	if len(seen.seen) != 1 || seen.seen[0].URL.Path != "/v1/store/reserve" || seen.seen[0].Header.Get("Authorization") != "Bearer s3cret" {
		t.Errorf("the wrapper saw %v, want the reservation with its token", seen.seen)
	}

	// A client of the caller's with no transport of its own is wrapped too.
	newStore(t, "http://127.0.0.1:1", httpstore.WithHTTPClient(&http.Client{}))
	if len(wrapped) != 2 || wrapped[1] != http.DefaultTransport {
		t.Errorf("a client without a transport: wrapped %v, want http.DefaultTransport", wrapped[1:])
	}

	httpstore.SetTransportWrapper(nil)
	st = newStore(t, "http://127.0.0.1:1")
	if _, err := st.Reserve(t.Context(), "app/order", 10, 1); err == nil || strings.Contains(err.Error(), "down") {
		t.Errorf("after SetTransportWrapper(nil): %v, want the refused connection of no wrapper", err)
	}
	if len(wrapped) != 2 {
		t.Errorf("the wrapper was called after it was removed")
	}
}
