package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_RelativeSQLiteFollowsTheConfig checks issue 19's first duplicate through
// the CLI: a configuration under svc/ whose dsn is ids.db, used from the parent
// directory with -c svc/cosid.yaml by cosid next and by an admin command (cosid
// keys), uses svc/ids.db, the file next to the configuration: the second next goes
// on at 4, keys sees the key, and no ids.db appears in the working directory.
func TestCLI_RelativeSQLiteFollowsTheConfig(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	svc := filepath.Join(parent, "svc")
	if err := os.Mkdir(svc, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "cosid:\n  stores:\n    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 3s, options: { initSchema: true } }\n" +
		"  generators:\n    order: { strategy: segment, store: db }\n"
	if err := os.WriteFile(filepath.Join(svc, "cosid.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, svc, "next", "order", "-n", "3"); code != 0 || out != "1\n2\n3\n" {
		t.Fatalf("cosid next in svc/ = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if out, errOut, code := runCLI(t, parent, "next", "order", "-c", "svc/cosid.yaml"); code != 0 || out != "4\n" {
		t.Errorf("cosid next -c svc/cosid.yaml from the parent = %q (exit %d, stderr %q), want 4", out, code, errOut)
	}
	if out, errOut, code := runCLI(t, parent, "keys", "-c", "svc/cosid.yaml"); code != 0 || !strings.Contains(out, "cosid/order") {
		t.Errorf("cosid keys -c svc/cosid.yaml from the parent = %q (exit %d, stderr %q), want the key cosid/order", out, code, errOut)
	}
	if _, err := os.Stat(filepath.Join(parent, "ids.db")); err == nil {
		t.Error("a run from the parent directory created ids.db there")
	}
}
