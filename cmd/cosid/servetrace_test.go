package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpCollector is a fake OTLP/HTTP collector: it keeps the spans it is sent, by
// name, with the trace ids of each in hex.
type otlpCollector struct {
	mu    sync.Mutex
	spans map[string][]string
}

func (c *otlpCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "want an OTLP trace export at /v1/traces", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans[s.GetName()] = append(c.spans[s.GetName()], hex.EncodeToString(s.GetTraceId()))
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// TestServe_TracesToOTLPAndCapacityMetrics serves with OTEL_EXPORTER_OTLP_ENDPOINT
// set: a request that carries a traceparent, and the store call it makes, reach the
// collector in the caller's trace by the time the server has stopped. /metrics has
// the capacity series of the configured generators.
func TestServe_TracesToOTLPAndCapacityMetrics(t *testing.T) {
	c := &otlpCollector{spans: map[string][]string{}}
	col := httptest.NewServer(c)
	defer col.Close()
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.URL)
	p := startServe(t, writeConfig(t, serveConfig))
	if !strings.Contains(p.log(), "tracing=true") {
		t.Errorf("the listening line does not say tracing=true:\n%s", p.log())
	}
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	if status, body := get(t, p.url+"/v1/generators/event/next", "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01"); status != 200 {
		t.Fatalf("next event: %d %s", status, body)
	}
	if status, body := get(t, p.url+"/v1/generators/order/next"); status != 200 {
		t.Fatalf("next order: %d %s", status, body)
	}
	_, exposition := get(t, p.url+"/metrics")
	for _, want := range []string{`cosid_snowflake_layout_seconds_left{generator="event"} `, `cosid_lease_slots_free{namespace="app/event"} 3`,
		`cosid_lease_slots_limit{namespace="app/event"} 4`, `cosid_segment_headroom_ids{key="app/order",store="db"} `,
		`cosid_store_failing_since_timestamp_seconds{store="db"} 0`, `cosid_lease_events_total{event="lost",namespace="app/event"} 0`} {
		if !strings.Contains(exposition, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("cosid serve on SIGTERM: %v\n%s", err, p.log())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, name := range []string{"GET /v1/generators/{name}/next", "store.acquire"} {
		if !slices.Contains(c.spans[name], traceID) {
			t.Errorf("span %q in traces %q, want the caller's %s; the collector got %v", name, c.spans[name], traceID, c.spans)
		}
	}
	if _, ok := c.spans["store.reserve"]; !ok {
		t.Errorf("no store.reserve span of the segment's reservation; the collector got %v", c.spans)
	}
}
