package server

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// slowStore takes 2s, of synctest's time, for each reservation.
type slowStore struct{ store.RangeStore }

func (s slowStore) Reserve(ctx context.Context, key string, n, initial int64) (store.Range, error) {
	time.Sleep(2 * time.Second) // sleep-ok: synctest's fake time, the store's latency
	return s.RangeStore.Reserve(ctx, key, n, initial)
}

// TestServeHTTP_MetricsTimeEachRequestFromItsStart serves an id whose reservation
// takes 2s, 10s after the server started, on synctest's time: the latency histogram
// has 2s, from the request's start, and not the time since the server's.
func TestServeHTTP_MetricsTimeEachRequestFromItsStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := cosid.ParseConfig([]byte(testConfig))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
			cosid.WithStoreWrapper(func(_, _ string, st store.RangeStore) store.RangeStore { return slowStore{st} }))
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		s := mustNew(t, rt, WithLogger(nil), withNewMetrics(t))
		time.Sleep(10 * time.Second) // sleep-ok: synctest's fake time, the server's uptime
		if status, _, body := do(t, s, "GET", "/v1/generators/order/next", ""); status != 200 {
			t.Fatalf("next: %d %s", status, body)
		}
		_, _, body := do(t, s, "GET", "/metrics", "")
		const want = `cosid_http_request_seconds_sum{route="GET /v1/generators/{name}/next"} 2` + "\n"
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q; its latency lines:\n%s", want, grepLines(body, "cosid_http_request_seconds_sum"))
		}
	})
}

// grepLines returns the lines of text that hold s.
func grepLines(text, s string) string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}
