package cosid_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
	_ "github.com/cosid-go/cosid/store/httpstore"
)

// The store type test-silent never answers: its open ends only when the caller's
// context does. An open under a context that nothing can cancel would wait forever,
// so it fails at once instead, for the test to say so.
func init() {
	check := func(spec store.Spec) (store.Facts, error) {
		return store.Facts{Leases: true}, spec.Decode(&struct{}{})
	}
	store.Register("test-silent", store.Type{Check: check, Open: func(ctx context.Context, spec store.Spec) (store.RangeStore, error) {
		if _, err := check(spec); err != nil {
			return nil, err
		}
		if ctx.Done() == nil {
			return nil, errors.New("opened under a context that no caller can cancel")
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}})
}

// TestRuntime_FirstCallHonoursContext checks that the first call of a generator,
// which opens its store or leases its slot, ends with the caller's canceled context
// at once, and that a caller's giving up is no failure of the store: the next caller
// gets no backoff.
func TestRuntime_FirstCallHonoursContext(t *testing.T) {
	ended := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a cosid serve that never answers
		case <-r.Context().Done():
		case <-ended:
		}
	}))
	defer silent.Close()
	defer close(ended)
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  stores:
    silent: { type: test-silent }
    remote: { type: http, url: ` + silent.URL + `, timeout: 2s }
  generators:
    order: { strategy: segment, store: silent }
    bill: { strategy: periodic-segment, store: silent, period: YEAR, zone: UTC }
    event: { strategy: snowflake, store: remote }
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func(ctx context.Context, rt *cosid.Runtime) error
	}{
		{"Next opens the store", func(ctx context.Context, rt *cosid.Runtime) error { _, err := rt.Next(ctx, "order"); return err }},
		{"NextInt opens the store", func(ctx context.Context, rt *cosid.Runtime) error { _, err := rt.NextInt(ctx, "order"); return err }},
		{"Segment opens the store", func(ctx context.Context, rt *cosid.Runtime) error { _, err := rt.Segment(ctx, "order"); return err }},
		{"Periodic opens the store", func(ctx context.Context, rt *cosid.Runtime) error { _, err := rt.Periodic(ctx, "bill"); return err }},
		{"Build opens the store", func(ctx context.Context, rt *cosid.Runtime) error { return rt.Build(ctx, "bill") }},
		{"Next leases the slot", func(ctx context.Context, rt *cosid.Runtime) error { _, err := rt.Next(ctx, "event"); return err }},
		{"Snowflake leases the slot", func(ctx context.Context, rt *cosid.Runtime) error {
			_, err := rt.Snowflake(ctx, "event")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			for range 2 { // the second call gets no backoff from the first
				err := tt.call(ctx, rt)
				if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "retrying in") {
					t.Fatalf("with a canceled context: %v; want it to wrap context.Canceled, without a backoff", err)
				}
			}
		})
	}
}
