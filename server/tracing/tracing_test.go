package tracing

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/cosid-go/cosid"
)

func TestEnabled_OffUnlessTheEnvironmentAsks(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		on      bool
		errWord string
	}{
		{env: nil},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}},
		{env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "jaeger"}, errWord: "OTEL_TRACES_EXPORTER"},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, errWord: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
	} {
		on, err := enabled(func(k string) string { return tc.env[k] })
		if on != tc.on || (err == nil) != (tc.errWord == "") || err != nil && !strings.Contains(err.Error(), tc.errWord) {
			t.Errorf("%v: on %v, err %v; want on %v, an error naming %q", tc.env, on, err, tc.on, tc.errWord)
		}
	}
}

func TestFromEnv_OffWrapsNothing(t *testing.T) {
	for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	tr, err := FromEnv(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Enabled() || tr.TracerProvider() != nil {
		t.Error("tracing is on with no OTEL_* variable set")
	}
	if err := tr.Shutdown(t.Context()); err != nil {
		t.Error(err)
	}
}

// collector is a fake OTLP/HTTP collector that keeps the span names it is sent.
type collector struct {
	mu    sync.Mutex
	names []string
	paths []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paths = append(c.paths, r.URL.Path)
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(nil)
}

// TestFromEnv_ExportsStoreSpansOverOTLP turns tracing on with
// OTEL_EXPORTER_OTLP_ENDPOINT, traces a runtime's first reservation through Runtime's wrapper, and
// finds its span at the collector after Shutdown.
func TestFromEnv_ExportsStoreSpansOverOTLP(t *testing.T) {
	c := &collector{}
	hs := httptest.NewServer(c)
	defer hs.Close()
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", hs.URL)
	tr, err := FromEnv(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Enabled() {
		t.Fatal("tracing is off with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores:\n    mem: { type: memory }\n  generators:\n    order: { strategy: segment, store: mem }\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), tr.Runtime())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if _, err := rt.Next(t.Context(), "order"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	others := slices.DeleteFunc(slices.Clone(c.names), func(n string) bool { return n == "store.reserve" })
	if len(c.paths) == 0 || c.paths[0] != "/v1/traces" || len(c.names) == 0 || len(others) > 0 {
		t.Errorf("the collector got %v at %v, want store.reserve at /v1/traces", c.names, c.paths)
	}
}
