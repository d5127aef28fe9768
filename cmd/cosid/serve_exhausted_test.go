package main

import (
	"strings"
	"testing"
)

// TestServe_CodecFullIsCapacityNotOutage replays the review's N2 on the binary: a
// generator of a one-digit codec whose max-batch is more is warned of at start
// with the numbers; a range
// of a million stops at 9; past it calls are 409 exhausted, which /metrics,
// /readyz (still ready) and the status page report.
func TestServe_CodecFullIsCapacityNotOutage(t *testing.T) {
	dir := writeConfig(t, strings.Replace(serveConfig, "  serve:",
		"    digit: { strategy: segment, store: db, max-batch: 1000, codec: [ { radix: { radix: 10, width: 1 } } ] }\n  serve:", 1))
	p := startServe(t, dir)
	for _, want := range []string{"level=WARN", "one reservation of max-batch 1000", "generator=digit", "capacity=9"} {
		if !strings.Contains(p.log(), want) {
			t.Errorf("the start log lacks %q:\n%s", want, p.log())
		}
	}
	if status, body := get(t, p.url+"/v1/generators/digit/range?count=10000"); status != 200 || !strings.Contains(body, `"end":"10"`) {
		t.Errorf("range of 10000 = %d %s, want it capped at 9: end 10", status, body)
	}
	if status, body := get(t, p.url+"/v1/generators/digit/next"); status != 409 || !strings.Contains(body, `"code":"exhausted"`) {
		t.Errorf("next past the width = %d %s, want 409 exhausted", status, body)
	}
	if status, body := get(t, p.url+"/v1/generators/order/next"); status != 200 {
		t.Errorf("another generator = %d %s, want served", status, body)
	}
	_, exposition := get(t, p.url+"/metrics")
	for _, want := range []string{`cosid_generator_exhausted{generator="digit"} 1`, `cosid_generator_exhausted{generator="order"} 0`,
		`cosid_generator_headroom_ids{generator="digit"} 0`, `cosid_generator_capacity_ids{generator="digit"} 9`} {
		if !strings.Contains(exposition, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if status, body := get(t, p.url+"/readyz"); status != 200 || !strings.Contains(body, `"ready":true`) || !strings.Contains(body, `"exhausted":{"digit":"full`) {
		t.Errorf("/readyz = %d %s, want ready, naming digit full", status, body)
	}
	if _, page := get(t, p.url+"/"); !strings.Contains(page, `<tr><td>digit</td><td class="num"><span class="bad">full</span> 0</td>`) {
		t.Errorf("the status page does not show digit full")
	}
}
