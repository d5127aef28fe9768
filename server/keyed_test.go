package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
)

// keyedConfig has a keyed template of each strategy that may be keyed, beside a
// generator that is not keyed, on one memory store.
const keyedConfig = `
cosid:
  namespace: test
  stores:
    mem: { type: memory }
  generators:
    invoice:
      strategy: segment
      store: mem
      keyed: true
      max-live-keys: 3
      codec: [ { prefix: { value: "INV-" } }, { to-string: {} } ]
    tenant: { strategy: segment, store: mem, keyed: true }
    bill: { strategy: periodic-segment, store: mem, period: YEAR_MONTH_DAY, zone: UTC, keyed: true }
    order: { strategy: segment, store: mem }
`

// newKeyedServer returns a Server of keyedConfig, with the 4.x API over its store.
func newKeyedServer(t testing.TB) (*Server, *cosid.Runtime) {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(keyedConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	return mustNew(t, rt, WithStore(st), WithLogger(nil), WithCompat4x()), rt
}

func TestKeyedNext_EachKeyIsASequence(t *testing.T) {
	s, _ := newKeyedServer(t)
	today := time.Now().UTC().Format("20060102")
	tests := []struct {
		target string
		want   []string
	}{
		{"/v1/generators/invoice/next?key=acme", []string{"INV-1"}},
		{"/v1/generators/invoice/next?key=acme&count=3", []string{"INV-2", "INV-3", "INV-4"}},
		{"/v1/generators/invoice/next?count=2&key=globex", []string{"INV-1", "INV-2"}},
		{"/v1/generators/tenant/next?key=t:1.eu_x-2&count=2", []string{"1", "2"}},
		{"/v1/generators/bill/next?key=shop&count=2", []string{today + "-1", today + "-2"}},
		{"/v1/generators/order/next", []string{"1"}},
	}
	for _, tt := range tests {
		status, _, body := do(t, s, "GET", tt.target, "")
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", tt.target, status, body)
		}
		if got := strings.Fields(body); !slices.Equal(got, tt.want) {
			t.Errorf("GET %s = %q, want %q", tt.target, got, tt.want)
		}
	}
	status, _, body := do(t, s, "GET", "/v1/generators/tenant/range?key=t2&count=5", "")
	if status != http.StatusOK || body != `{"end":"6","start":"1"}`+"\n" {
		t.Errorf("GET range of a key: %d %q; want [1, 6)", status, body)
	}
	status, _, body = do(t, s, "GET", "/v1/generators/invoice/decode?key=acme&text=INV-42", "")
	if status != http.StatusOK || !strings.Contains(body, `"value":"42"`) {
		t.Errorf("GET decode with a key: %d %q; want value 42", status, body)
	}
	status, _, body = do(t, s, "GET", "/v1/generators/invoice/decode?text=INV-42", "")
	if status != http.StatusOK || !strings.Contains(body, `"value":"42"`) {
		t.Errorf("GET decode of a keyed one without a key: %d %q; want value 42: every key has the template's codec", status, body)
	}
}

func TestKeyedNext_BadCallsAre400(t *testing.T) {
	s, rt := newKeyedServer(t)
	tests := []struct {
		target string
		status int
		want   string
	}{
		{"/v1/generators/invoice/next", 400, `generator \"invoice\" is keyed, a sequence per key: name one; want 1–128 bytes of A-Z, a-z, 0-9`},
		{"/v1/generators/invoice/next?count=2", 400, "is keyed"},
		{"/v1/generators/invoice/range?count=2", 400, "is keyed"},
		{"/v1/generators/bill/range?key=a", 400, "whose ids come one at a time, not in ranges"},
		{"/v1/generators/order/next?key=acme", 400, `generator \"order\" is not keyed: it takes no key; leave out the key`},
		{"/v1/generators/order/range?key=acme", 400, "is not keyed"},
		{"/v1/generators/order/decode?key=acme&text=1", 400, "is not keyed"},
		{"/v1/generators/invoice/next?key=", 400, "the key is empty; want 1–128 bytes"},
		{"/v1/generators/invoice/next?key=&count=1", 400, "the key is empty"},
		{"/v1/generators/invoice/next?key=a%2Fb", 400, `has '/' at byte 1; want 1–128 bytes of A-Z, a-z, 0-9, '.', '_', ':' and '-'`},
		{"/v1/generators/invoice/next?key=%C3%BC", 400, "invalid key"},
		{"/v1/generators/invoice/next?key=" + strings.Repeat("k", 129), 400, "is 129 bytes"},
		{"/v1/generators/invoice/next?key=..", 400, "a path reads as a directory"},
		{"/v1/generators/invoice/next?key=a&key=b", 400, `\"key\" is given 2 times`},
		{"/v1/generators/invoice/decode?key=a/b&text=INV-1", 400, "invalid key"},
		{"/v1/generators/nope/next?key=a", 404, "unknown generator"},
		{"/ids/invoice", 400, "4.x's /ids routes name no key: use /v1/generators/invoice/next?key=K"},
		{"/ids/as-string/bill", 400, "is keyed"},
	}
	for _, tt := range tests {
		status, _, body := do(t, s, "GET", tt.target, "")
		if status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s: %d %s; want %d with %q", tt.target, status, body, tt.status, tt.want)
		}
	}
	if ks := rt.Stats("invoice").Keys; ks.Opened != 0 {
		t.Errorf("the refused calls opened %d keys; want none", ks.Opened)
	}
}

// TestKeyedNext_ConcurrentKeysNeverRepeat asks for ids of more keys than the
// template keeps live from many goroutines: no text repeats within a key.
func TestKeyedNext_ConcurrentKeysNeverRepeat(t *testing.T) {
	s, rt := newKeyedServer(t)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := range 60 {
				key := string(rune('a' + (i+w)%7))
				status, _, body := do(t, s, "GET", "/v1/generators/invoice/next?count=3&key="+key, "")
				if status != http.StatusOK {
					t.Errorf("%d %s", status, body)
					return
				}
				mu.Lock()
				for _, id := range strings.Fields(body) {
					if seen[key+id] {
						t.Errorf("key %s: %s twice", key, id)
					}
					seen[key+id] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 6*60*3 {
		t.Errorf("%d distinct ids; want %d", len(seen), 6*60*3)
	}
	if ks := rt.Stats("invoice").Keys; ks.Evicted == 0 || ks.Live > 3 {
		t.Errorf("KeyStats = %+v; want evictions and at most 3 live keys", ks)
	}
}

// TestKeyed_InventoryAndStatusCountPerTemplate serves keys of a template, then reads
// the inventory, the status page and SegmentStats: one entry for the template, with
// its count of live keys, and no key in any of them.
func TestKeyed_InventoryAndStatusCountPerTemplate(t *testing.T) {
	s, _ := newKeyedServer(t)
	for _, key := range []string{"k-one", "k-two"} {
		if status, _, body := do(t, s, "GET", "/v1/generators/invoice/next?key="+key, ""); status != 200 {
			t.Fatalf("%d %s", status, body)
		}
	}
	_, _, body := do(t, s, "GET", "/v1/generators", "")
	var inv struct{ Generators []generatorJSON }
	if err := json.Unmarshal([]byte(body), &inv); err != nil {
		t.Fatal(err)
	}
	var invoice generatorJSON
	for _, g := range inv.Generators {
		if g.Name == "invoice" {
			invoice = g
		}
	}
	if !invoice.Keyed || invoice.LiveKeys == nil || *invoice.LiveKeys != 2 || invoice.State != "serving" {
		t.Errorf("inventory's invoice = %+v; want keyed, serving, 2 live keys", invoice)
	}
	stats := s.SegmentStats()
	if len(stats) != 1 || stats[0].Key != "test/invoice" || stats[0].Reserves != 2 {
		t.Errorf("SegmentStats = %+v; want one, of test/invoice, with both keys' reservations", stats)
	}
	if kc := s.KeyCounts(); len(kc) != 3 || kc[1] != (metrics.KeyCount{Generator: "invoice", Live: 2, Opened: 2}) {
		t.Errorf("KeyCounts = %+v; want bill, invoice (2 live keys) and tenant", kc)
	}
	_, _, page := do(t, s, "GET", "/", "")
	if !strings.Contains(page, "keyed: 2 live keys of at most 3") || strings.Contains(page, "k-one") {
		t.Errorf("the status page lacks the live keys of invoice, or names a key:\n%s", page)
	}
}

// TestKeyed_Compat4xSegmentsKeepTheirOwnKeys runs 4.x segments beside a keyed template
// on the same store: each keeps its own keys.
func TestKeyed_Compat4xSegmentsKeepTheirOwnKeys(t *testing.T) {
	s, _ := newKeyedServer(t)
	steps := []struct{ method, target, want string }{
		{"POST", "/segments/distributor/test/invoice?offset=0&step=10", ""},
		{"PATCH", "/segments/test/invoice?step=10", "10"},
		{"GET", "/v1/generators/invoice/next?key=acme", "INV-1\n"},
		{"PATCH", "/segments/test/invoice?step=10", "20"},
		{"GET", "/v1/generators/invoice/next?key=acme", "INV-2\n"},
	}
	for _, st := range steps {
		status, _, body := do(t, s, st.method, st.target, "")
		if status != http.StatusOK || body != st.want {
			t.Errorf("%s %s: %d %q; want 200 %q", st.method, st.target, status, body, st.want)
		}
	}
}

func TestLookup_ResolvesNameAndKey(t *testing.T) {
	s, _ := newKeyedServer(t)
	g, src, err := s.lookup("invoice", "acme")
	if err != nil || g.info.Name != "invoice" || src.Name() != "invoice" || src.Key() != "acme" {
		t.Fatalf("lookup(invoice, acme) = %+v, %+v, %v", g, src, err)
	}
	ids, err := texts(t.Context(), g, src, 3)
	if err != nil || !slices.Equal(ids, []string{"INV-1", "INV-2", "INV-3"}) {
		t.Errorf("texts of invoice/acme = %q, %v; want INV-1…3", ids, err)
	}
	g, plain, err := s.lookup("order", "")
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := texts(t.Context(), g, plain, 2); err != nil || !slices.Equal(ids, []string{"1", "2"}) {
		t.Errorf("texts of order = %q, %v", ids, err)
	}
	for _, c := range [][2]string{{"invoice", ""}, {"order", "k"}, {"invoice", "a b"}} {
		if _, _, err := s.lookup(c[0], c[1]); !badKey(err) {
			t.Errorf("lookup(%q, %q) = %v; want a refused key, a bad request", c[0], c[1], err)
		}
	}
}
