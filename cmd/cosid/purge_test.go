package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// runCLIInput runs the CLI with args in dir, stdin as its input, and returns its
// stdout, stderr and exit code.
func runCLIInput(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

const purgeConfig = `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db }
    bill: { strategy: periodic-segment, store: db, period: YEAR_MONTH_DAY, zone: UTC }
    ledger: { strategy: periodic-segment, store: db, period: YEAR_MONTH, zone: Asia/Shanghai }
`

// purgeNow is the clock of the purge tests: 2020-01-04 is the current day of bill,
// 2020-01-05 the next, 202001 the current month of ledger.
const purgeNow = "2020-01-04T12:00:00Z"

func purgeFixture(t *testing.T) (string, *sqlstore.Store) {
	t.Helper()
	dir := writeConfig(t, purgeConfig)
	st, err := sqlstore.Open("sqlite", filepath.Join(dir, "ids.db"), 5*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, k := range []string{"app/bill/20191231", "app/bill/20200101", "app/bill/20200102", "app/bill/20200103",
		"app/bill/20200104", "app/bill/20200105", "app/bill/20200106", "app/bill/extra", "app/billing/20190101",
		"app/ledger/201911", "app/ledger/201912", "app/ledger/202001", "app/order"} {
		if _, err := st.Reserve(t.Context(), k, 10, 1); err != nil {
			t.Fatal(err)
		}
	}
	return dir, st
}

func keysOf(t *testing.T, st store.Admin) []string {
	t.Helper()
	var keys []string
	for k, err := range store.AllKeys(t.Context(), st, "app/", 100) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.Key)
	}
	return keys
}

// TestPurge_NeverCurrentOrNextPeriod purges with a cut past the next period: only
// the periods before the current one go, of every periodic generator.
func TestPurge_NeverCurrentOrNextPeriod(t *testing.T) {
	dir, st := purgeFixture(t)
	before := keysOf(t, st)
	out, errOut, code := runCLI(t, dir, "purge", "--before", "20200110", "--now", purgeNow, "--dry-run")
	list := "app/bill/20191231\napp/bill/20200101\napp/bill/20200102\napp/bill/20200103\napp/ledger/201911\napp/ledger/201912\n"
	if code != 0 || out != list+"dry run: would seal and delete 6 keys\n" {
		t.Fatalf("purge --dry-run = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if got := keysOf(t, st); !slices.Equal(got, before) {
		t.Fatalf("a dry run changed the keys: %q", got)
	}
	// An interrupted purge left a key sealed and not deleted.
	if err := st.Seal(t.Context(), "app/bill/20200101"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLIInput(t, dir, "y\n", "purge", "--before", "20200110", "--now", purgeNow)
	if code != 0 || out != list+"sealed and deleted 6 keys\n" {
		t.Fatalf("purge = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if want := "seal and delete these 6 keys? [y/N] purged 6/6 keys\n"; errOut != want {
		t.Errorf("purge stderr = %q, want %q", errOut, want)
	}
	want := []string{"app/bill/20200104", "app/bill/20200105", "app/bill/20200106", "app/bill/extra", "app/billing/20190101", "app/ledger/202001", "app/order"}
	if got := keysOf(t, st); !slices.Equal(got, want) {
		t.Errorf("keys after purge = %q, want %q", got, want)
	}
	out, _, code = runCLI(t, dir, "purge", "--before", "20200110", "--now", purgeNow, "--yes")
	if code != 0 || out != "no period keys before 2020-01-10\n" {
		t.Errorf("second purge = %q (exit %d)", out, code)
	}
}

func TestPurge_CutAndGenerator(t *testing.T) {
	tests := []struct {
		args []string
		out  string
	}{
		{[]string{"--before", "20200102", "--generator", "bill"}, "app/bill/20191231\napp/bill/20200101\n"},
		{[]string{"--before", "202001", "--generator", "bill"}, "app/bill/20191231\n"},
		{[]string{"--before", "2020"}, "app/bill/20191231\napp/ledger/201911\napp/ledger/201912\n"},
		{[]string{"--before", "201912"}, "app/ledger/201911\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir, _ := purgeFixture(t)
			out, errOut, code := runCLI(t, dir, append([]string{"purge", "--now", purgeNow, "--dry-run"}, tc.args...)...)
			if !strings.HasPrefix(out, tc.out+"dry run: ") || code != 0 {
				t.Errorf("purge %v = %q (exit %d, stderr %q), want the list %q", tc.args, out, code, errOut, tc.out)
			}
		})
	}
}

func TestPurge_NotConfirmedDeletesNothing(t *testing.T) {
	dir, st := purgeFixture(t)
	before := keysOf(t, st)
	for _, answer := range []string{"n\n", "", "maybe\n"} {
		_, errOut, code := runCLIInput(t, dir, answer, "purge", "--before", "2020", "--now", purgeNow)
		if code != 1 || !strings.Contains(errOut, "nothing deleted: not confirmed") {
			t.Errorf("answer %q: exit %d, stderr %q", answer, code, errOut)
		}
	}
	if got := keysOf(t, st); !slices.Equal(got, before) {
		t.Errorf("an unconfirmed purge changed the keys: %q", got)
	}
}

func TestProgress(t *testing.T) {
	tests := []struct {
		terminal bool
		total    int
		want     string
	}{
		{true, 3, "\r[##########....................] 1/3 keys\r[####################..........] 2/3 keys\r[##############################] 3/3 keys\n"},
		{false, 3, "purged 3/3 keys\n"},
		{false, 2500, "purged 1000/2500 keys\npurged 2000/2500 keys\npurged 2500/2500 keys\n"},
	}
	for _, tc := range tests {
		var b strings.Builder
		p := &progress{w: &b, total: tc.total, terminal: tc.terminal}
		for i := range tc.total {
			p.step(i + 1)
		}
		p.done()
		if b.String() != tc.want {
			t.Errorf("progress of %d keys, terminal %v = %q, want %q", tc.total, tc.terminal, b.String(), tc.want)
		}
	}
}
