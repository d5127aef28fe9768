package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
)

// goneWriter is the ResponseWriter of a client that has gone away: every Write fails
// as a write on a closed connection does.
type goneWriter struct {
	header http.Header
	codes  []int
}

func (w *goneWriter) Header() http.Header         { return w.header }
func (w *goneWriter) WriteHeader(code int)        { w.codes = append(w.codes, code) }
func (w *goneWriter) Write(b []byte) (int, error) { return 0, syscall.EPIPE }

// TestNext_ClientGoneIsNotAStoreFailure checks that ids the client left before
// reading are a gap and nothing else: no second answer after the first, and no
// warning that the store is unavailable.
func TestNext_ClientGoneIsNotAStoreFailure(t *testing.T) {
	var logs bytes.Buffer
	s := newServer(t, nil, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	for _, target := range []string{"/v1/generators/order/next", "/v1/generators/order/next?count=5", "/v1/generators/code/next"} {
		w := &goneWriter{header: http.Header{}}
		s.ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), "GET", target, nil))
		if len(w.codes) != 0 {
			t.Errorf("GET %s to a client gone: WriteHeader%v after the ids' Write; want none", target, w.codes)
		}
	}
	if strings.Contains(logs.String(), "unavailable") {
		t.Errorf("a client gone was logged as a store failure:\n%s", logs.String())
	}
}
