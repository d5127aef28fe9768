package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

const mainEnv = "COSID_CLI_RUN_MAIN"

// TestMain makes the test binary the cosid command when mainEnv is set, so that
// tests run the real CLI in a process of its own; it removes the binary that
// builtCLI built.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the cosid binary that go build makes, for what only a real build has:
// its build information.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// builtCLI builds the cosid binary once per test binary and returns its path.
func builtCLI(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "cosid-cli-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "cosid")
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// runCLI runs the CLI with args in dir and returns its stdout, stderr and exit code.
func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIInput(t, dir, "", args...)
}

// TestNext_ContinuesAcrossRuns runs cosid next twice on the default store, cosid.db in
// the working directory: the second run goes on where the first stopped, nothing
// burned.
func TestNext_ContinuesAcrossRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, want := range []string{"1\n2\n3\n", "4\n5\n6\n"} {
		out, errOut, code := runCLI(t, dir, "next", "order", "-n", "3")
		if code != 0 || out != want {
			t.Fatalf("cosid next order -n 3 = %q (exit %d, stderr %q), want %q", out, code, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cosid.db")); err != nil {
		t.Errorf("the default store cosid.db: %v", err)
	}
	// Another namespace is another key; --dsn names the same file.
	out, _, code := runCLI(t, t.TempDir(), "next", "order", "--namespace", "shop", "--dsn", filepath.Join(dir, "cosid.db"))
	if code != 0 || out != "1\n" {
		t.Errorf("next in namespace shop = %q (exit %d), want 1", out, code)
	}
}

func TestNext_BadInputExits1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"next"}, "want one generator NAME, got 0 arguments\n\nUsage:\n  cosid next NAME [flags]"},
		{[]string{"next", "a", "b"}, "got 2 arguments"},
		{[]string{"next", "order", "--timeout", "0s"}, "--timeout 0s: want > 0"},
		{[]string{"next", "order", "-n", "0"}, "--count 0"},
		{[]string{"next", "order", "--store", "sqlite:a.db"}, `--store "sqlite:a.db": --store names a store of the configuration, as on every command; for an SQLite file give --dsn a.db`},
		{[]string{"next", "order", "--store", "nope"}, `--store "nope": no such store in the embedded default configuration; it has: default`},
		{[]string{"next", "order", "--store", "default", "--dsn", "postgres://x"}, "give one"},
		{[]string{"next", "order", "--driver", "pgx"}, "--driver needs --dsn"},
		{[]string{"next", "order", "--dsn", "some-dsn"}, "set --driver"},
		{[]string{"next", "order", "--dsn", "postgres://postgres@127.0.0.1:1/x", "--timeout", "1s"}, "cannot reach"},
		{[]string{"next", strings.Repeat("x", 250)}, "over the limit"},
		{[]string{"nope"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " ")[:min(40, len(strings.Join(tc.args, " ")))], func(t *testing.T) {
			out, errOut, code := runCLI(t, t.TempDir(), tc.args...)
			if code != 1 || out != "" {
				t.Errorf("exit %d, stdout %q; want exit 1 and no output", code, out)
			}
			if !strings.Contains(errOut, tc.mention) {
				t.Errorf("stderr %q does not say %q", errOut, tc.mention)
			}
		})
	}
}

// TestVersion builds cosid and checks that version and --version print the module
// version and, in a git checkout, the revision it was built from. (The go command
// records no revision in a git worktree, whose .git is a file, nor without git.)
func TestVersion(t *testing.T) {
	t.Parallel()
	bin := builtCLI(t)
	rev, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	top, _ := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git"))
	checkout := len(rev) > 0 && err == nil && fi.IsDir()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil || !regexp.MustCompile(`^cosid \S+ .*go1\.\d+.* \w+/\w+\n$`).Match(out) {
			t.Errorf("cosid %v = %q, %v; want the version, Go version and platform", args, out, err)
		}
		if !checkout {
			t.Logf("not a git checkout with a .git directory: %q", out)
			continue
		}
		if !regexp.MustCompile(`^cosid v\S+ `).Match(out) || !strings.Contains(string(out), " git "+strings.TrimSpace(string(rev))) {
			t.Errorf("cosid %v = %q; want the module version and the git revision %s", args, out, rev)
		}
	}
}

func TestInferDriver(t *testing.T) {
	t.Parallel()
	tests := []struct{ dsn, driver string }{
		{"postgres://u@h:5432/db", "pgx"},
		{"postgresql://u@h/db", "pgx"},
		{"sqlserver://sa@h?database=db", "sqlserver"},
		{"root@tcp(127.0.0.1:3306)/test", "mysql"},
		{"u:p@unix(/run/mysqld.sock)/db", "mysql"},
		{"file:ids.db", "sqlite"},
		{"ids.db", "sqlite"},
		{"/var/lib/cosid.sqlite3", "sqlite"},
		{"ids", ""},
		{"user:pw@host/ids.db", ""},
	}
	for _, tc := range tests {
		got, err := inferDriver(tc.dsn)
		if got != tc.driver || (err != nil) != (tc.driver == "") {
			t.Errorf("inferDriver(%q) = %q, %v; want %q", tc.dsn, got, err, tc.driver)
		}
	}
}

const billConfig = `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 10, lookahead: 0s }
    bill:
      strategy: periodic-segment
      store: db
      period: YEAR_MONTH_DAY
      zone: UTC
      codec:
        - date-prefix: { delimiter: "-" }
        - radix: { radix: 10, width: 6, pad-start: true }
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestNext_ConfiguredGeneratorsPrintTheirText runs cosid next on a cosid.yaml in the
// working directory: a periodic segment prints its codec's text.
func TestNext_ConfiguredGeneratorsPrintTheirText(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig)
	out, errOut, code := runCLI(t, dir, "next", "bill", "-n", "2")
	day := `\d{8}`
	if code != 0 || !regexp.MustCompile(`^`+day+`-000001\n`+day+`-000002\n$`).MatchString(out) {
		t.Fatalf("cosid next bill -n 2 = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if out, _, code := runCLI(t, dir, "next", "order", "--config", "cosid.yaml"); code != 0 || out != "1\n" {
		t.Errorf("cosid next order = %q (exit %d)", out, code)
	}
	_, errOut, code = runCLI(t, dir, "next", "nope")
	if code != 1 || !strings.Contains(errOut, `unknown generator "nope"; configured: bill, order`) {
		t.Errorf("unknown generator: exit %d, stderr %q", code, errOut)
	}
}

// TestNext_DSNBesideAConfiguration checks --dsn as next's help gives it: NAME is an
// ad-hoc segment on that database even beside a cosid.yaml, which is not read (said
// on stderr); --dsn with an explicit --config is refused, saying to give one.
func TestNext_DSNBesideAConfiguration(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig)
	if out, errOut, code := runCLI(t, dir, "next", "order", "-n", "2"); code != 0 || out != "1\n2\n" {
		t.Fatalf("cosid next order = %q (exit %d, stderr %q)", out, code, errOut)
	}
	out, errOut, code := runCLI(t, dir, "next", "order", "-n", "3", "--dsn", "x.db")
	if code != 0 || out != "1\n2\n3\n" || !strings.Contains(errOut, "cosid: --dsn: order is an ad-hoc segment on that database; cosid.yaml here is not read") {
		t.Errorf("next --dsn beside cosid.yaml = %q (exit %d, stderr %q), want 1 2 3 from x.db and a notice", out, code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err != nil {
		t.Errorf("the ad-hoc store: %v", err)
	}
	_, errOut, code = runCLI(t, dir, "next", "order", "--dsn", "x.db", "--config", "cosid.yaml")
	if code != 1 || !strings.Contains(errOut, "give one") {
		t.Errorf("--dsn with --config: exit %d, stderr %q", code, errOut)
	}
}

// TestNext_StoreNamesAConfigurationStore: --store of next is a store NAME of the
// configuration, as on keys, slots, seal, purge and migrate: an ad-hoc segment on
// it, or a generator of the configuration that is on it.
func TestNext_StoreNamesAConfigurationStore(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig)
	if out, errOut, code := runCLI(t, dir, "next", "invoice", "-n", "2", "--store", "db"); code != 0 || out != "1\n2\n" {
		t.Errorf("next invoice --store db = %q (exit %d, stderr %q), want 1 2", out, code, errOut)
	}
	if out, errOut, code := runCLI(t, dir, "keys", "--store", "db", "--prefix", "app/invoice"); code != 0 || !strings.Contains(out, "app/invoice  3") {
		t.Errorf("keys --store db = %q (exit %d, stderr %q), want app/invoice at 3", out, code, errOut)
	}
	if out, _, code := runCLI(t, dir, "next", "order", "--store", "db"); code != 0 || out != "1\n" {
		t.Errorf("next order --store db = %q (exit %d), want 1", out, code)
	}
	if _, errOut, code := runCLI(t, dir, "next", "order", "--store", "other"); code != 1 || !strings.Contains(errOut, `--store "other": no such store in cosid.yaml; it has: db`) {
		t.Errorf("next order --store other: exit %d, stderr %q", code, errOut)
	}
}

func TestDecode_PrintsJSON(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig)
	tests := []struct {
		args []string
		out  string
	}{
		{[]string{"decode", "bill", "20261027-000042"}, `{"period":"20261027","value":42}` + "\n"},
		{[]string{"decode", "order", "42"}, `{"value":42}` + "\n"},
	}
	for _, tc := range tests {
		if out, errOut, code := runCLI(t, dir, tc.args...); code != 0 || out != tc.out {
			t.Errorf("cosid %v = %q (exit %d, stderr %q), want %q", tc.args, out, code, errOut, tc.out)
		}
	}
	// A Snowflake's UUIDv7 decodes to its time, machine and sequence; a UUID that is
	// not one of its (a random UUIDv7's rand_a) is refused.
	uuidDir := writeConfig(t, "cosid:\n  generators:\n    ev: { strategy: snowflake, machine-id: 7, codec: [ { uuidv7: {} } ] }\n")
	want := `{"value":"905388396896088106","time":"2026-10-27T01:30:15.123Z","machine":7,"sequence":42}` + "\n"
	if out, errOut, code := runCLI(t, uuidDir, "decode", "ev", "01a17afa-bcd3-7000-8000-00000000702a"); code != 0 || out != want {
		t.Errorf("decode ev of a UUIDv7 = %q (exit %d, stderr %q), want %q", out, code, errOut, want)
	}
	if _, errOut, code := runCLI(t, uuidDir, "decode", "ev", "01a17afa-bcd3-7cc3-8000-00000000702a"); code != 1 || !strings.Contains(errOut, "byte 15: rand_a is cc3; want 000") {
		t.Errorf("decode ev of a random UUIDv7: exit %d, stderr %q", code, errOut)
	}
	// Without a configuration an ad-hoc segment's text is plain decimal.
	if out, _, code := runCLI(t, t.TempDir(), "decode", "order", "7"); code != 0 || out != `{"value":7}`+"\n" {
		t.Errorf("decode without a configuration = %q (exit %d)", out, code)
	}
	bad := []struct {
		args    []string
		mention string
	}{
		{[]string{"decode", "bill", "20261032-000042"}, "byte 6: day 32"},
		{[]string{"decode", "bill", "2026102-000042"}, "cannot decode"},
		{[]string{"decode", "order", "042"}, "leading zero"},
		{[]string{"decode", "nope", "1"}, `unknown generator "nope"`},
		{[]string{"decode", "bill"}, "want a generator NAME and a TEXT of it, got 1 argument"},
	}
	for _, tc := range bad {
		if out, errOut, code := runCLI(t, dir, tc.args...); code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
			t.Errorf("cosid %v: exit %d, stdout %q, stderr %q; want exit 1 saying %q", tc.args, code, out, errOut, tc.mention)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig)
	out, errOut, code := runCLI(t, dir, "config", "check")
	if code != 0 || !strings.Contains(out, "cosid.yaml: ok, namespace app, 1 store, 2 generators") ||
		!regexp.MustCompile(`bill\s+periodic-segment\s+app/bill\s+db \(sql\)`).MatchString(out) {
		t.Errorf("config check = %q (exit %d, stderr %q)", out, code, errOut)
	}
	// The store type's facts (store.Facts), as its Check gave them without I/O.
	for _, want := range []string{"store db (sql): timeout", ", leases slots", "checks when it opens:", "  - dialect: "} {
		if !strings.Contains(out, want) {
			t.Errorf("config check = %q; want the store's facts, among them %q", out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ids.db")); !os.IsNotExist(err) {
		t.Errorf("config check without --open touched the store: %v", err)
	}
	bad := writeConfig(t, strings.Replace(billConfig, "zone: UTC", "zone: Mars/Olympus", 1))
	if _, errOut, code := runCLI(t, bad, "config", "check"); code != 1 || !strings.Contains(errOut, `cosid.generators.bill.zone: "Mars/Olympus" is not a known time zone`) {
		t.Errorf("bad config: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, t.TempDir(), "config", "check"); code != 1 || !strings.Contains(errOut, "cosid.yaml") {
		t.Errorf("missing config: exit %d, stderr %q", code, errOut)
	}
}

func TestSchema(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, t.TempDir(), "schema", "--dialect", "postgresql", "--range-table", "ids.ranges")
	if code != 0 || !strings.Contains(out, `"ids"."ranges"`) || !strings.Contains(out, "cosid_slot") {
		t.Errorf("schema = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if _, errOut, code := runCLI(t, t.TempDir(), "schema", "--dialect", "oracle"); code != 1 || !strings.Contains(errOut, "oracle") {
		t.Errorf("unknown dialect: exit %d, stderr %q", code, errOut)
	}
	for _, d := range []string{"postgres", "pg", "PostgreSQL", "PG"} {
		if got, errOut, code := runCLI(t, t.TempDir(), "schema", "--dialect", d); code != 0 || got != strings.Replace(out, `"ids"."ranges"`, `"cosid_range"`, 1) {
			t.Errorf("schema --dialect %s: exit %d, stderr %q; want postgresql's script", d, code, errOut)
		}
	}
	_, errOut, code = runCLI(t, t.TempDir(), "schema", "--dialect", "mysql", "--range-table", "a.b.c")
	if code != 1 || !strings.Contains(errOut, "--range-table: table name \"a.b.c\" has 2 dots") || strings.Contains(errOut, "rangeTable") {
		t.Errorf("schema with a bad --range-table: exit %d, stderr %q; want it to name the flag", code, errOut)
	}
}

// TestNext_NewSQLiteFileIsLogged checks that a run of next that creates its SQLite
// file says so, with the absolute path, as serve and the library do, and that a
// later run on the file says nothing: a -c that points at another folder does not
// start a new sequence without a word.
func TestNext_NewSQLiteFileIsLogged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "svc"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "svc", "cosid.yaml"), []byte(billConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, dir, "next", "order", "-c", "svc/cosid.yaml")
	path := filepath.Join(dir, "svc", "ids.db")
	if code != 0 || !strings.Contains(errOut, "level=INFO msg=\"sqlstore: creating the SQLite database, which does not exist yet\" path="+path+"\n") {
		t.Errorf("first run: exit %d, stderr %q; want the new file %s logged", code, errOut, path)
	}
	if out, errOut, code := runCLI(t, dir, "next", "order", "-c", "svc/cosid.yaml"); code != 0 || out != "2\n" || errOut != "" {
		t.Errorf("second run = %q (exit %d, stderr %q); want 2 and nothing on stderr", out, code, errOut)
	}
}
