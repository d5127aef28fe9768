package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

// TestInspection_CreatesNoSQLiteFile: keys, slots and seal in a folder without a
// store, or on a mistyped --dsn, fail naming the absolute path of the file that is
// not there, and leave the folder as it was.
func TestInspection_CreatesNoSQLiteFile(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"keys"}, {"keys", "--prefix", "x"}, {"slots", "app/event"}, {"seal", "app/x"}} {
		for _, dsn := range []string{"", "typo.db"} {
			t.Run(strings.Join(args, " ")+" "+dsn, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				file, run := "cosid.db", args
				if dsn != "" {
					file, run = dsn, append(append([]string(nil), args...), "--dsn", dsn)
				}
				out, errOut, code := runCLI(t, dir, run...)
				want := filepath.Join(dir, file) + " does not exist"
				if code != 1 || !strings.Contains(errOut, want) {
					t.Errorf("cosid %s: exit %d, stdout %q, stderr %q; want exit 1 saying %q", strings.Join(run, " "), code, out, errOut, want)
				}
				if notice := "no cosid.yaml here: the default store, the SQLite file cosid.db"; dsn == "" && !strings.Contains(errOut, notice) {
					t.Errorf("cosid %s: stderr %q, want the notice %q", strings.Join(run, " "), errOut, notice)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("cosid %s left %s behind", strings.Join(run, " "), entries[0].Name())
				}
			})
		}
	}
}

// TestInspection_NoDDLOnAnEmptyDatabase: keys, slots and seal on a MariaDB database
// without CosId's tables fail naming them, and create none.
func TestInspection_NoDDLOnAnEmptyDatabase(t *testing.T) {
	server := testenv.Server(t, testenv.MySQL)
	admin, err := sql.Open("mysql", server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "cosid_inspect_" + strings.ToLower(strings.NewReplacer("/", "").Replace(uniquePrefix(t)[len("clitest/"):]))
	if _, err := admin.Exec("create database " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("drop database " + name) })
	dsn := server[:strings.LastIndexByte(server, '/')+1] + name
	for _, args := range [][]string{{"keys"}, {"slots", "app/event"}, {"seal", "app/x"}} {
		run := append(args, "--dsn", dsn)
		out, errOut, code := runCLI(t, t.TempDir(), run...)
		if code != 1 || !strings.Contains(errOut, "cosid_range") {
			t.Errorf("cosid %s on an empty database: exit %d, stdout %q, stderr %q; want exit 1 naming cosid_range", strings.Join(args, " "), code, out, errOut)
		}
	}
	var tables int
	if err := admin.QueryRow("select count(*) from information_schema.tables where table_schema = ?", name).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("the inspections created %d tables in an empty database", tables)
	}
}

// TestKeys_ReadsAStoreThatExists: keys and slots read a SQLite file that a run of
// next made, named by --dsn, relatively to the working directory, or by the
// configuration from its own folder.
func TestKeys_ReadsAStoreThatExists(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: "data/ids.db?_pragma=synchronous(normal)", timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 1, lookahead: 0s }
`)
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, dir, "next", "order", "-n", "2"); code != 0 {
		t.Fatalf("cosid next: exit %d, %q, %q", code, out, errOut)
	}
	for _, run := range []struct {
		dir  string
		args []string
	}{
		{dir, []string{"keys"}},
		{t.TempDir(), []string{"keys", "--config", filepath.Join(dir, "cosid.yaml")}},
		{filepath.Join(dir, "data"), []string{"keys", "--dsn", "ids.db"}},
	} {
		out, errOut, code := runCLI(t, run.dir, run.args...)
		if code != 0 || !strings.Contains(out, "app/order  3") {
			t.Errorf("cosid %s: exit %d, stdout %q, stderr %q; want app/order at 3", strings.Join(run.args, " "), code, out, errOut)
		}
	}
}

// TestExistingStore_OpensTheFileWithoutCreatingIt: the DSN of an inspection names
// the file the configuration means, read from its folder, in a URI whose mode
// forbids creating it (and, for readOnly, writing), keeping the DSN's parameters.
func TestExistingStore_OpensTheFileWithoutCreatingIt(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"ids.db", "a b?.db"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		dsn    string
		access access
		want   string
	}{
		{"ids.db", readOnly, "file:" + dir + "/ids.db?mode=ro"},
		{"ids.db?_pragma=synchronous(normal)", mustExist, "file:" + dir + "/ids.db?mode=rw&_pragma=synchronous(normal)"},
		{"file:ids.db?mode=rwc&cache=shared", readOnly, "file:" + dir + "/ids.db?mode=ro&cache=shared"},
		{"file:a%20b%3F.db", readOnly, "file:" + dir + "/a%20b%3F.db?mode=ro"},
		{"ids.db", mayCreate, "ids.db"},
	}
	for _, tc := range tests {
		cfg := cosid.Config{Dir: dir}
		sc, err := existingStore(cfg, cosid.StoreConfig{Type: "sql", Settings: map[string]any{"driver": "sqlite", "dsn": tc.dsn}}, tc.access)
		if err != nil {
			t.Errorf("%q: %v", tc.dsn, err)
			continue
		}
		if got := sc.Settings["dsn"]; got != tc.want {
			t.Errorf("%q: dsn %q, want %q", tc.dsn, got, tc.want)
		}
		if o, _ := sc.Settings["options"].(map[string]any); tc.access != mayCreate && o["initSchema"] != false {
			t.Errorf("%q: options %v, want initSchema false", tc.dsn, o)
		}
	}
}
