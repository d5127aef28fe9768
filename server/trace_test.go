package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/memstore"
)

// serveTraced opens cfg with its stores traced by tp, serves the store storeName
// over the store API with its requests traced by tp, on a loopback port, and
// returns the server's URL.
func serveTraced(t *testing.T, tp trace.TracerProvider, cfg, storeName string) string {
	t.Helper()
	c, err := cosid.ParseConfig([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), c, cosid.WithLogger(nil), cosid.WithStoreWrapper(server.TraceStores(tp)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := server.New(rt, server.WithLogger(nil), server.WithTracing(tp),
		server.WithStoreFunc(func(ctx context.Context) (store.RangeStore, error) { return rt.Store(ctx, storeName) }))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer(ln.Addr().String())
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

// twoServers starts server B on a memory store and server A whose store "remote"
// is an httpstore of B, both traced into one in-memory exporter, and returns A's
// URL and the exporter.
func twoServers(t *testing.T) (string, *tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	httpstore.SetTransportWrapper(server.TraceTransport(tp))
	t.Cleanup(func() { httpstore.SetTransportWrapper(nil) })
	b := serveTraced(t, tp, `
cosid:
  namespace: b
  stores:
    mem: { type: memory }
`, "mem")
	a := serveTraced(t, tp, fmt.Sprintf(`
cosid:
  namespace: app
  stores:
    remote: { type: http, url: %q }
  generators:
    event: { strategy: snowflake, store: remote, owner-key: host-a }
`, b), "remote")
	// cosid serve reads its store's identity at start (the start log names it);
	// these servers read it here, so that it is no part of the traces tested.
	resp, err := http.Get(a + "/v1/store/ping")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cosid-Store-Id") == "" {
		t.Fatalf("GET /v1/store/ping on A: %s, store id %q", resp.Status, resp.Header.Get("Cosid-Store-Id"))
	}
	exp.Reset()
	return a, exp, tp
}

// call sends method target to base inside a client span of tp, with its trace
// context in traceparent, and returns the span's trace id.
func call(t *testing.T, tp trace.TracerProvider, method, url, body string) trace.TraceID {
	t.Helper()
	ctx, span := tp.Tracer("test").Start(t.Context(), "client")
	defer span.End()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	return span.SpanContext().TraceID()
}

// spanKey is what the test asks of a span: its name and, for store spans, the
// store's type and key.
func spanKey(s tracetest.SpanStub) string {
	attrs := map[attribute.Key]string{}
	for _, a := range s.Attributes {
		attrs[a.Key] = a.Value.String()
	}
	if typ, ok := attrs["cosid.store.type"]; ok {
		return fmt.Sprintf("%s %s %s", s.Name, typ, attrs["cosid.store.key"])
	}
	if route, ok := attrs["http.route"]; ok {
		return s.Name + " route=" + route
	}
	return s.Name
}

// chain returns the spans of trace id from the root down, each the parent of the
// next, or fails t when they do not form one chain.
func chain(t *testing.T, spans tracetest.SpanStubs, id trace.TraceID) []string {
	t.Helper()
	children := map[trace.SpanID][]tracetest.SpanStub{}
	var root *tracetest.SpanStub
	n := 0
	for i, s := range spans {
		if s.SpanContext.TraceID() != id {
			continue
		}
		n++
		if !s.Parent.IsValid() {
			root = &spans[i]
			continue
		}
		children[s.Parent.SpanID()] = append(children[s.Parent.SpanID()], s)
	}
	if root == nil {
		t.Fatalf("no root span in trace %v of %d spans", id, n)
	}
	got := []string{spanKey(*root)}
	for cur := *root; len(children[cur.SpanContext.SpanID()]) > 0; {
		kids := children[cur.SpanContext.SpanID()]
		if len(kids) != 1 {
			names := make([]string, len(kids))
			for i, k := range kids {
				names[i] = spanKey(k)
			}
			t.Fatalf("span %s has %d children, want 1: %q", cur.Name, len(kids), names)
		}
		cur = kids[0]
		got = append(got, spanKey(cur))
	}
	if len(got) != n {
		t.Errorf("trace %v has %d spans, %d of them in one chain: %q", id, n, len(got), got)
	}
	return got
}

// TestTracing_OneTraceAcrossTwoServers sends a reservation to server A, whose
// store is an httpstore of server B: the client's span, A's request, A's store
// call, the httpstore's request, B's request and B's store call are one trace,
// each the parent of the next.
func TestTracing_OneTraceAcrossTwoServers(t *testing.T) {
	a, exp, tp := twoServers(t)
	id := call(t, tp, http.MethodPost, a+"/v1/store/reserve", `{"key":"app/order","size":10,"initialOffset":1}`)
	want := []string{
		"client",
		"POST /v1/store/reserve route=/v1/store/reserve",
		"store.reserve http app/order",
		"HTTP POST",
		"POST /v1/store/reserve route=/v1/store/reserve",
		"store.reserve memory app/order",
	}
	if got := chain(t, exp.GetSpans(), id); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the spans of one reservation:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	exp.Reset()

	// A Snowflake generator's first id leases its slot through both servers.
	id = call(t, tp, http.MethodGet, a+"/v1/generators/event/next", "")
	want = []string{
		"client",
		"GET /v1/generators/{name}/next route=/v1/generators/{name}/next",
		"store.acquire http app/event",
		"HTTP POST",
		"POST /v1/store/acquire route=/v1/store/acquire",
		"store.acquire memory app/event",
	}
	if got := chain(t, exp.GetSpans(), id); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the spans of a Snowflake's first id:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTracing_StoreErrorsMarkTheSpan fails a store call: its span has the error.
func TestTracing_StoreErrorsMarkTheSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	st := server.TraceStore(tp, "db", "memory", memstore.New())
	if err := st.Seal(t.Context(), "app/sealed"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "app/sealed", 10, 1); err == nil {
		t.Fatal("a sealed key reserved")
	}
	spans := exp.GetSpans()
	if len(spans) != 2 || spans[1].Name != "store.reserve" || spans[1].Status.Description == "" || len(spans[1].Events) == 0 {
		t.Errorf("spans %+v, want store.seal and a store.reserve with its error", spans)
	}
}

// TestTraceStore_KeepsWhatTheStoreIs wraps stores that lease and administer and one
// that does neither: the wrapper is what the store is, and no more.
func TestTraceStore_KeepsWhatTheStoreIs(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	full := server.TraceStore(tp, "mem", "memory", memstore.New())
	if _, ok := full.(store.SlotLeaseStore); !ok {
		t.Error("a traced memory store is not a SlotLeaseStore")
	}
	if _, ok := full.(store.Admin); !ok {
		t.Error("a traced memory store is not an Admin")
	}
	plain := server.TraceStore(tp, "p", "plain", struct{ store.RangeStore }{memstore.New()})
	if _, ok := plain.(store.SlotLeaseStore); ok {
		t.Error("a traced store that leases nothing is a SlotLeaseStore")
	}
	if _, ok := plain.(store.Admin); ok {
		t.Error("a traced store without admin calls is an Admin")
	}
	if to, ok := plain.(store.Timeouter); !ok || to.Timeout() != 0 {
		t.Errorf("a traced store without a timeout: %v, want Timeouter 0", plain)
	}
}

// TestTraceStore_PassesGiveBackAndIdentityOn: with tracing on, a runtime's stores
// are traced ones, so Close's give-back (S7) and the store identity of the range
// answers go through the wrapper, or SIGTERM would leave a gap and ranges no store
// id.
func TestTraceStore_PassesGiveBackAndIdentityOn(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	mem := memstore.New()
	st := server.TraceStore(tp, "mem", "memory", mem)
	r, err := st.Reserve(t.Context(), "app/k", 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	gb, ok := st.(store.GiveBacker)
	if !ok {
		t.Fatal("a traced memory store is not a GiveBacker")
	}
	if lowered, err := gb.GiveBack(t.Context(), "app/k", store.Range{Start: r.Start + 3, End: r.End}); err != nil || !lowered {
		t.Fatalf("GiveBack through the traced store: %v, %v; want it lowered", lowered, err)
	}
	if next, err := mem.Reserve(t.Context(), "app/k", 1, 1); err != nil || next.Start != r.Start+3 {
		t.Errorf("after the give-back the next range is %v, %v; want it to start at %d", next, err, r.Start+3)
	}
	if spans := exp.GetSpans(); spans[len(spans)-1].Name != "store.give_back" {
		t.Errorf("the last span is %q, want store.give_back", spans[len(spans)-1].Name)
	}
	want, err := mem.StoreID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.(store.Identifier).StoreID(t.Context()); err != nil || got != want {
		t.Errorf("StoreID through the traced store: %q, %v; want %q", got, err, want)
	}
	plain := server.TraceStore(tp, "p", "plain", struct{ store.RangeStore }{memstore.New()})
	if lowered, err := plain.(store.GiveBacker).GiveBack(t.Context(), "app/k", store.Range{Start: 1, End: 2}); lowered || err != nil {
		t.Errorf("GiveBack of a store that takes none: %v, %v; want false, nil", lowered, err)
	}
	if id, err := plain.(store.Identifier).StoreID(t.Context()); id != "" || err != nil {
		t.Errorf("StoreID of a store that has none: %q, %v; want none", id, err)
	}
}
