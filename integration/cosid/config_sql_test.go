package cosid_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// The root's tests of a SQL store's settings, through Load's checks and Open: they
// need a driver (the embedded default's SQLite), which the core module does not
// require.

// TestConfig_StoreTimeoutAboveReserveTimeout checks at load that a generator's callers
// never give up on a reservation its store may still finish.
func TestConfig_StoreTimeoutAboveReserveTimeout(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := openYAML(t, `
cosid:
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 5s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, reserve-timeout: 3s }
`)
	want := "cosid.generators.order.reserve-timeout: reserve-timeout 3s is below the store's timeout 5s"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v; want an error containing %q", err, want)
	}
}

func TestConfig_SQLStoreErrorsNameThePath(t *testing.T) {
	t.Chdir(t.TempDir())
	tests := []struct{ store, want string }{
		{"{type: sql, dirver: sqlite, dsn: x.db}", "cosid.stores.db.dirver: unknown key; did you mean driver? want one of: driver, dsn, dsn-file, options, password-file, timeout"},
		{"{type: sql, driver: sqlite, dsn: x.db, timeout: soon}", `cosid.stores.db.timeout: "soon" is not a duration`},
		{"{type: sql, driver: oracle, dsn: x}", "cosid.stores.db.driver:"},
		{"{type: sql, dsn: x.db}", "cosid.stores.db.driver: missing; want one of pgx, mysql, sqlserver, sqlite"},
		{"{type: sql, driver: sqlite, dsn: x.db, options: {initschema: true}}", "cosid.stores.db.options.initschema: unknown key"},
		{"{type: sql, driver: sqlite, dsn: x.db, options: {dialect: db2}}", `cosid.stores.db.options.dialect: "db2" is unknown`},
	}
	for _, tc := range tests {
		_, err := openYAML(t, "cosid:\n  stores:\n    db: "+tc.store+"\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "cosid.stores.db") != 1 {
			t.Errorf("store %s: %v; want one error naming %q once", tc.store, err, tc.want)
		}
	}
}

// TestConfig_SettingsChangedAfterParsing checks that a store's Settings changed in
// Go after ParseConfig are the ones opened.
func TestConfig_SettingsChangedAfterParsing(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores:\n    db: {type: sql, driver: sqlite, options: {initSchema: true}}\n  generators:\n    n: {strategy: segment, store: db}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "cosid.stores.db.dsn: missing") {
		t.Fatalf("Validate without a dsn: %v", err)
	}
	cfg.Stores["db"].Settings["dsn"] = filepath.Join(t.TempDir(), "ids.db")
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatalf("Open with the dsn set in Go: %v", err)
	}
	defer rt.Close()
	if text, err := rt.Next(t.Context(), "n"); err != nil || text != "1" {
		t.Errorf("Next = %q, %v", text, err)
	}
}

func TestLoad_NoFileGivesTheSQLiteDefault(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg := cosid.DefaultConfig()
	cfg.Generators["order"] = cosid.GeneratorConfig{Strategy: "segment", Store: cosid.DefaultStore}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatalf("Open(DefaultConfig): %v", err)
	}
	if text, err := rt.Next(t.Context(), "order"); err != nil || text != "1" {
		t.Errorf("Next = %q, %v", text, err)
	}
	rt.Close()
	if _, err := os.Stat("cosid.db"); err != nil {
		t.Errorf("the default store made no cosid.db in the working directory: %v", err)
	}
	rt, err = cosid.Load(t.Context(), "", cosid.WithLogger(nil))
	if err != nil {
		t.Fatalf("Load of no file: %v", err)
	}
	defer rt.Close()
	if len(rt.Generators()) != 0 {
		t.Errorf("the default has generators: %v", rt.Generators())
	}
}
