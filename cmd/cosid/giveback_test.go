package main

import (
	"strings"
	"syscall"
	"testing"
)

// TestServe_S7_SIGTERMGivesBackTheUnusedTail takes ids of a segment, a periodic and
// a keyed generator of a cosid serve on SQLite, stops it with SIGTERM and starts it
// again: each goes on at the id after the last one handed out, with no gap, but
// the generator with give-back: false, whose range's rest is a gap.
func TestServe_S7_SIGTERMGivesBackTheUnusedTail(t *testing.T) {
	dir := writeConfig(t, `
cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: cosid.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 10 }
    gappy: { strategy: segment, store: db, step: 10, give-back: false }
    bill: { strategy: periodic-segment, store: db, step: 10, period: YEAR, zone: UTC, codec: [ { period: { delimiter: '-' } } ] }
    invoice: { strategy: segment, store: db, step: 10, keyed: true }
`)
	routes := map[string]string{
		"order":   "/v1/generators/order/next",
		"gappy":   "/v1/generators/gappy/next",
		"bill":    "/v1/generators/bill/next",
		"invoice": "/v1/generators/invoice/next?key=a",
	}
	take := func(p *serveProc, name string, count string) []string {
		t.Helper()
		sep := "?"
		if strings.Contains(routes[name], "?") {
			sep = "&"
		}
		status, body := get(t, p.url+routes[name]+sep+"count="+count)
		if status != 200 {
			t.Fatalf("%s: %d %q", name, status, body)
		}
		return strings.Fields(body)
	}
	p := startServe(t, dir)
	last := map[string]string{}
	for name := range routes {
		ids := take(p, name, "3")
		last[name] = ids[len(ids)-1]
	}
	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("cosid serve on SIGTERM: %v\n%s", err, p.log())
	}
	p2 := startServe(t, dir)
	want := map[string]string{"order": "4", "gappy": "11", "bill": "4", "invoice": "4"}
	for name := range routes {
		id := take(p2, name, "1")[0]
		if _, value, periodic := strings.Cut(id, "-"); periodic {
			id = value // a bill number: 2026-4
		}
		if id != want[name] {
			t.Errorf("%s: the last id before SIGTERM was %s, the first after the restart %s; want %s",
				name, last[name], id, want[name])
		}
	}
}
