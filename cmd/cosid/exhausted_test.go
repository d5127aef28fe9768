package main

import (
	"strings"
	"testing"
)

// TestNext_PrintsEveryIDThatFitsTheCodec: cosid next across a codec's width prints
// every id the codec writes, losing none it reserved, then fails naming the width
// and the fix.
func TestNext_PrintsEveryIDThatFitsTheCodec(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `cosid:
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    digit: { strategy: segment, store: db, codec: [ { radix: { radix: 10, width: 1 } } ] }
`)
	if out, errOut, code := runCLI(t, dir, "next", "digit", "-n", "7"); code != 0 {
		t.Fatalf("cosid next digit -n 7: exit %d, %q, %q", code, out, errOut)
	}
	out, errOut, code := runCLI(t, dir, "next", "digit", "-n", "3")
	if code != 1 || out != "8\n9\n" || !strings.Contains(errOut, "the width 1") || !strings.Contains(errOut, "widen the codec") {
		t.Errorf("cosid next digit -n 3 at the width: exit %d, stdout %q, stderr %q; want 8 and 9, then exit 1 naming the width and the fix", code, out, errOut)
	}
}
