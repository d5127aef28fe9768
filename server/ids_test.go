package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid"
)

func TestNext_Text(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		target string
		want   []string
	}{
		{"/v1/generators/order/next", []string{"1"}},
		{"/v1/generators/order/next?count=3", []string{"2", "3", "4"}},
		{"/v1/generators/code/next?count=2", []string{"C-000001", "C-000002"}},
	}
	for _, tt := range tests {
		status, h, body := do(t, s, "GET", tt.target, "")
		if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
			t.Fatalf("GET %s: %d %s %q", tt.target, status, h.Get("Content-Type"), body)
		}
		if got := strings.Fields(body); !slices.Equal(got, tt.want) {
			t.Errorf("GET %s = %q, want %q", tt.target, got, tt.want)
		}
	}
}

func TestNext_JSONIdsAreStrings(t *testing.T) {
	s := newServer(t, nil)
	for _, name := range []string{"order", "bill", "event"} {
		status, h, body := do(t, s, "GET", "/v1/generators/"+name+"/next?count=3", "", "Accept", "application/json")
		if status != http.StatusOK || h.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s %q", name, status, h.Get("Content-Type"), body)
		}
		var out struct{ IDs []any }
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("%s: %v in %q", name, err, body)
		}
		if len(out.IDs) != 3 {
			t.Fatalf("%s: %d ids in %q, want 3", name, len(out.IDs), body)
		}
		for _, id := range out.IDs {
			if _, ok := id.(string); !ok {
				t.Errorf("%s: id %v is a %T, want a string", name, id, id)
			}
		}
	}
}

// TestNext_ConcurrentNoDuplicates asks for ids of every strategy from many
// goroutines: each text comes once.
func TestNext_ConcurrentNoDuplicates(t *testing.T) {
	s := newServer(t, nil)
	for _, name := range []string{"order", "bill", "event"} {
		var mu sync.Mutex
		seen := map[string]bool{}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20 {
					status, _, body := do(t, s, "GET", "/v1/generators/"+name+"/next?count=7", "")
					if status != http.StatusOK {
						t.Errorf("%s: %d %s", name, status, body)
						return
					}
					mu.Lock()
					for _, id := range strings.Fields(body) {
						if seen[id] {
							t.Errorf("%s: id %s twice", name, id)
						}
						seen[id] = true
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != 8*20*7 {
			t.Errorf("%s: %d distinct ids, want %d", name, len(seen), 8*20*7)
		}
	}
}

func TestRange(t *testing.T) {
	s := newServer(t, nil)
	do(t, s, "GET", "/v1/generators/order/next", "")
	status, _, body := do(t, s, "GET", "/v1/generators/order/range?count=500", "")
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, body)
	}
	var r struct{ Start, End string }
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	start, _ := strconv.ParseInt(r.Start, 10, 64)
	end, _ := strconv.ParseInt(r.End, 10, 64)
	if end-start != 500 || start < 2 {
		t.Errorf("range %q, want 500 ids above the 1 handed out", body)
	}
}

func TestInventory(t *testing.T) {
	s := newServer(t, nil)
	do(t, s, "GET", "/v1/generators/order/next", "")
	status, _, body := do(t, s, "GET", "/v1/generators", "")
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, body)
	}
	var out struct{ Generators []generatorJSON }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range out.Generators {
		got = append(got, g.Name+":"+g.Strategy+":"+g.Key+":"+g.Store+":"+g.State)
	}
	want := []string{"bill:periodic-segment:test/bill:mem:idle", "code:segment:test/code:mem:idle",
		"event:snowflake:test/event:mem:idle", "order:segment:test/order:mem:serving", "trace:cosid-generator:test/trace:mem:idle"}
	if !slices.Equal(got, want) {
		t.Errorf("inventory %q, want %q", got, want)
	}
}

func TestDecode(t *testing.T) {
	s := newServer(t, nil)
	_, _, ev := do(t, s, "GET", "/v1/generators/event/next", "")
	tests := []struct {
		name, text string
		want       map[string]any
	}{
		{"code", "C-000042", map[string]any{"value": "42"}},
		{"bill", "20261027-42", map[string]any{"period": "20261027", "value": "42"}},
		{"event", strings.TrimSpace(ev), map[string]any{"value": strings.TrimSpace(ev), "machine": 0.0, "sequence": 0.0}},
	}
	for _, tt := range tests {
		status, _, body := do(t, s, "GET", "/v1/generators/"+tt.name+"/decode?text="+tt.text, "")
		if status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", tt.name, tt.text, status, body)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("decode %s %s: %s = %v, want %v (%s)", tt.name, tt.text, k, got[k], v, body)
			}
		}
	}
}

// TestDecode_UUIDv7 checks /decode of a Snowflake generator whose text is a
// UUIDv7: the time, machine and sequence, and a 400 naming the byte for a UUID
// that is not one of its.
func TestDecode_UUIDv7(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  generators:\n    ev: { strategy: snowflake, machine-id: 7, codec: [ { uuidv7: {} } ] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	s := mustNew(t, rt, WithLogger(nil))
	status, _, body := do(t, s, "GET", "/v1/generators/ev/decode?text=01a17afa-bcd3-7000-8000-00000000702a", "")
	want := `{"value":"905388396896088106","time":"2026-10-27T01:30:15.123Z","machine":7,"sequence":42}`
	if status != http.StatusOK || strings.TrimSpace(body) != want {
		t.Errorf("decode = %d %s, want 200 %s", status, body, want)
	}
	status, _, body = do(t, s, "GET", "/v1/generators/ev/decode?text=01a17afa-bcd3-4000-8000-00000000702a", "")
	if status != http.StatusBadRequest || !strings.Contains(body, "byte 14: version 4; want 7") {
		t.Errorf("decode of a UUIDv4 = %d %s, want 400 naming the version", status, body)
	}
}
