package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestNext_CodecFullIsConflictExhausted: past its codec's width a generator is a
// 409 exhausted (Connect: resource_exhausted) naming the width, not a 503 of an
// unavailable store.
func TestNext_CodecFullIsConflictExhausted(t *testing.T) {
	rt := openConfig(t, `cosid:
  stores:
    mem: { type: memory }
  generators:
    digit: { strategy: segment, store: mem, codec: [ { radix: { radix: 10, width: 1 } } ] }
`)
	s := mustNew(t, rt, WithLogger(nil))
	if status, _, body := do(t, s, "GET", "/v1/generators/digit/next?count=9", ""); status != http.StatusOK {
		t.Fatalf("the 9 ids that fit: %d %s", status, body)
	}
	status, _, body := do(t, s, "GET", "/v1/generators/digit/next", "")
	if status != http.StatusConflict || !strings.Contains(body, `"code":"exhausted"`) || !strings.Contains(body, "the width 1") {
		t.Errorf("next past the width = %d %s, want 409 exhausted naming the width", status, body)
	}
	status, _, body = do(t, s, "POST", "/cosid.v1.IdService/Next", `{"name":"digit"}`)
	if status != http.StatusTooManyRequests || !strings.Contains(body, `"code":"resource_exhausted"`) {
		t.Errorf("Connect Next past the width = %d %s, want resource_exhausted", status, body)
	}
}
