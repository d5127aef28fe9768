package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNext_OneShotLeavesNoWAL: one run of cosid next that makes thousands of
// reservations on SQLite ends with them in the database file alone, and leaves no
// write-ahead log beside it.
func TestNext_OneShotLeavesNoWAL(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 1, lookahead: 0s }
`)
	const n = "3000"
	out, errOut, code := runCLI(t, dir, "next", "order", "-n", n)
	if code != 0 || !strings.HasSuffix(out, "\n"+n+"\n") {
		t.Fatalf("cosid next order -n %s: exit %d, stderr %q, last ids %q", n, code, errOut, out[max(0, len(out)-20):])
	}
	if fi, err := os.Stat(filepath.Join(dir, "ids.db-wal")); err == nil {
		t.Errorf("cosid next left a write-ahead log of %d bytes", fi.Size())
	}
	// A copy of the database file alone holds the key where the run left it.
	data, err := os.ReadFile(filepath.Join(dir, "ids.db"))
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copied, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", copied)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var next int64
	if err := db.QueryRow("select next_value from cosid_range where range_key = 'app/order'").Scan(&next); err != nil || next < 3001 {
		t.Errorf("the database file alone: app/order at %d (%v), want at least 3001", next, err)
	}
}
