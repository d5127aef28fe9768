package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
)

// TestNext_ARunReservesExactlyWhatItPrints runs cosid next twice on each kind of
// segment generator of a configuration with a step of 10: the second run goes on
// where the first stopped, whatever the step and lookahead.
func TestNext_ARunReservesExactlyWhatItPrints(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, strings.Replace(billConfig, "step: 10, lookahead: 0s", "step: 100", 1))
	day := `\d{8}`
	tests := []struct {
		name  string
		runs  []*regexp.Regexp
		count string
	}{
		{"bill", []*regexp.Regexp{
			regexp.MustCompile(`^(` + day + `)-000001\n` + day + `-000002\n$`),
			regexp.MustCompile(`^(` + day + `)-000003\n` + day + `-000004\n$`),
		}, "2"},
		{"order", []*regexp.Regexp{regexp.MustCompile(`^1\n2\n$`), regexp.MustCompile(`^3\n4\n$`)}, "2"},
	}
	for _, tc := range tests {
		for i, want := range tc.runs {
			out, errOut, code := runCLI(t, dir, "next", tc.name, "-n", tc.count)
			if code != 0 || !want.MatchString(out) {
				t.Fatalf("run %d of cosid next %s -n %s = %q (exit %d, stderr %q), want %v", i+1, tc.name, tc.count, out, code, errOut, want)
			}
		}
	}
}

// TestConfigCheckOpen_ReservesNothing checks that config check --open opens the
// stores and says what it found, and takes no id: the next run still starts at 1.
func TestConfigCheckOpen_ReservesNothing(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig+"    event: { strategy: snowflake, store: db, owner-key: host-a }\n")
	for range 2 {
		out, errOut, code := runCLI(t, dir, "config", "check", "--open")
		if code != 0 || !regexp.MustCompile(`db\s+sql\s+ok, leases slots`).MatchString(out) ||
			!regexp.MustCompile(`event\s+db\s+ok \(no slot leased\)`).MatchString(out) {
			t.Fatalf("config check --open = %q (exit %d, stderr %q)", out, code, errOut)
		}
	}
	if out, _, _ := runCLI(t, dir, "next", "bill"); !strings.HasSuffix(out, "-000001\n") {
		t.Errorf("after config check --open, the next bill is %q; want 000001", out)
	}
	if out, _, _ := runCLI(t, dir, "next", "order"); out != "1\n" {
		t.Errorf("after config check --open, the next order is %q; want 1", out)
	}
	// A store that cannot be opened: the check fails and says which and why (a
	// folder that is not there is a setup error, not an unavailable store).
	down := writeConfig(t, strings.Replace(billConfig, "dsn: ids.db", "dsn: no/such/dir/ids.db", 1))
	out, errOut, code := runCLI(t, down, "config", "check", "--open")
	if code != 1 || !regexp.MustCompile(`bill\s+db\s+no: its store failed`).MatchString(out) || !strings.Contains(errOut, `store "db" (type sql)`) ||
		!strings.Contains(errOut, `store not set up: the folder `+filepath.Join(down, "no/such/dir")+` of the SQLite file ids.db does not exist`) {
		t.Errorf("config check --open on a store that is down = %q (exit %d, stderr %q)", out, code, errOut)
	}
}

// TestNext_HugeCountReservesAsItPrints runs cosid next with a count of 10^15 into a
// reader that stops after three lines: the key moves by what the pipe held and one
// chunk more, not by 10^15.
func TestNext_HugeCountReservesAsItPrints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "next", "order", "-n", "1000000000000000")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for i := 1; i <= 3; i++ {
		line, err := r.ReadString('\n')
		if err != nil || line != strconv.Itoa(i)+"\n" {
			t.Fatalf("line %d = %q, %v", i, line, err)
		}
	}
	stdout.Close() // head -3 exits
	if err := cmd.Wait(); err == nil {
		t.Errorf("cosid next kept going after its reader left")
	}
	out, errOut, code := runCLI(t, dir, "next", "order")
	next, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	// What the pipe holds (64 KiB on Linux; ids of 4 digits and a newline, or fewer)
	// was printed, though never read; past it, at most the chunk being written.
	const piped = 64 << 10 / 5
	if code != 0 || next < 4 || next > 4+piped+2*chunk {
		t.Errorf("the next run printed %q (exit %d, stderr %q); want at most a pipe's worth and a chunk (%d) after 3", out, code, errOut, chunk)
	}
}

// TestNext_DefaultStoreIsSaid checks that a run without a configuration says on
// stderr that it uses the default store.
func TestNext_DefaultStoreIsSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := runCLI(t, dir, "next", "order")
	if code != 0 || out != "1\n" || !strings.Contains(errOut, "no cosid.yaml here: order is an ad-hoc segment on the default store, the SQLite file cosid.db") {
		t.Errorf("cosid next order without a configuration = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "cosid.db")); err != nil {
		t.Errorf("no cosid.db: %v", err)
	}
	_, errOut, code = runCLI(t, dir, "next", "order", "--config", "cosid.yml")
	if code != 1 || !strings.Contains(errOut, "cosid.yml: no such file") {
		t.Errorf("cosid next --config of a missing file: exit %d, stderr %q; want it refused", code, errOut)
	}
}

// TestErrors_OneCosidPrefix checks the error lines of the CLI: one "cosid: ", and a
// configuration error says it is one.
func TestErrors_OneCosidPrefix(t *testing.T) {
	t.Parallel()
	bad := writeConfig(t, "cosid: {namspace: x}\n")
	overflow := writeConfig(t, strings.Replace(billConfig, "radix: 10, width: 6", "radix: 10, width: 1", 1))
	if out, _, code := runCLI(t, overflow, "next", "bill", "-n", "9"); code != 0 || !strings.HasSuffix(out, "-9\n") {
		t.Fatalf("nine bills of width 1 = %q (exit %d)", out, code)
	}
	tests := []struct {
		dir  string
		args []string
		says string
	}{
		{bad, []string{"config", "check"}, "cosid: invalid configuration: cosid.yaml:1: cosid.namspace: unknown key"},
		{bad, []string{"next", "order"}, "cosid: invalid configuration: cosid.yaml:1: cosid.namspace"},
		{overflow, []string{"next", "bill"}, `cosid: generator "bill": `},
	}
	for _, tc := range tests {
		_, errOut, code := runCLI(t, tc.dir, tc.args...)
		if code != 1 || !strings.HasPrefix(errOut, tc.says) || strings.Count(errOut, "cosid: ") != 1 {
			t.Errorf("cosid %v: exit %d, stderr %q; want one line starting %q, with one cosid: prefix", tc.args, code, errOut, tc.says)
		}
	}
}

// TestConfigCheck_SameChecksAsLoad checks that config check without --open refuses
// what a service would refuse when it loads the file, with the same error, and
// touches no store.
func TestConfigCheck_SameChecksAsLoad(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, from, to, says string }{
		{"NoDriver", "driver: sqlite, ", "", "cosid.stores.db.driver: missing"},
		{"StoreTimeoutAboveReserveTimeout", "timeout: 2s", "timeout: 5s", "cosid.generators.bill.reserve-timeout: reserve-timeout 3s is below the store's timeout 5s (cosid.stores.db.timeout)"},
		{"NegativeLeaseTTL", "order: {", "event: { strategy: snowflake, store: db, lease-ttl: -1s }\n    order: {", "cosid.generators.event.lease-ttl: -1s"},
		{"NegativeTolerance", "order: {", "event: { strategy: snowflake, store: db, tolerance: -1s }\n    order: {", "cosid.generators.event.tolerance: -1s"},
		{"EpochInTheFuture", "order: {", "event: { strategy: snowflake, store: db, epoch: 2999-01-01 }\n    order: {", "cosid.generators.event.epoch: 2999-01-01 is in the future"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeConfig(t, strings.Replace(billConfig, tc.from, tc.to, 1))
			_, errOut, code := runCLI(t, dir, "config", "check")
			if code != 1 || !strings.Contains(errOut, tc.says) {
				t.Errorf("config check: exit %d, stderr %q; want it to say %q", code, errOut, tc.says)
			}
			rt, err := cosid.Load(t.Context(), filepath.Join(dir, "cosid.yaml"))
			if err == nil {
				rt.Close()
				t.Fatal("Load accepted what config check refused")
			}
			_, words, _ := strings.Cut(err.Error(), "cosid.yaml:") // Load names the file by the path it was given
			if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(errOut, "cosid.yaml:"+words) {
				t.Errorf("Load: %v; want ErrConfig and config check's words %q", err, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, "ids.db")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the checks touched the store: %v", err)
			}
		})
	}
}

// TestDecode_Snowflake checks that decode prints a snowflake id's time (in the zone
// of its friendly item), machine and sequence, and a value above 2^53 as a string.
func TestDecode_Snowflake(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `cosid:
  generators:
    ev: { strategy: snowflake, machine-id: 7, epoch: 2020-01-01 }
    shown:
      strategy: snowflake
      machine-id: 7
      epoch: 2020-01-01
      codec: [ { friendly: { zone: Asia/Shanghai } } ]
`)
	l := snowflake.DefaultLayout()
	l.Epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	at := time.Date(2026, 10, 27, 1, 30, 15, 123e6, time.UTC)
	id, err := l.Compose(snowflake.State{Time: at, Machine: 7, Sequence: 42})
	if err != nil {
		t.Fatal(err)
	}
	if id <= 1<<53 {
		t.Fatalf("id %d is not above 2^53", id)
	}
	tests := []struct{ name, text, want string }{
		{"ev", strconv.FormatInt(id, 10), `{"value":"` + strconv.FormatInt(id, 10) + `","time":"2026-10-27T01:30:15.123Z","machine":7,"sequence":42}`},
		{"shown", "20261027093015123-7-42", `{"value":"` + strconv.FormatInt(id, 10) + `","time":"2026-10-27T09:30:15.123+08:00","machine":7,"sequence":42}`},
		{"ev", "4097", `{"value":4097,"time":"2020-01-01T00:00:00.000Z","machine":1,"sequence":1}`},
	}
	for _, tc := range tests {
		out, errOut, code := runCLI(t, dir, "decode", tc.name, tc.text)
		if code != 0 || out != tc.want+"\n" {
			t.Errorf("cosid decode %s %s = %q (exit %d, stderr %q), want %s", tc.name, tc.text, out, code, errOut, tc.want)
		}
	}
}

// TestNext_AnotherStoreDown runs cosid next on a generator whose store works while
// another store of the configuration is down: it prints its ids; a generator on
// the down store fails with a message that names the store and is no config error.
func TestNext_AnotherStoreDown(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, billConfig+`    remote: { strategy: segment, store: down }
`)
	cfg := strings.Replace(mustRead(t, filepath.Join(dir, "cosid.yaml")), "  generators:\n",
		"    down: { type: sql, driver: pgx, dsn: 'postgres://u@127.0.0.1:1/x', timeout: 1s }\n  generators:\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, dir, "next", "order"); code != 0 || out != "1\n" {
		t.Errorf("cosid next order with another store down = %q (exit %d, stderr %q)", out, code, errOut)
	}
	_, errOut, code := runCLI(t, dir, "next", "remote")
	if code != 1 || !strings.HasPrefix(errOut, `cosid: generator "remote": store "down" unavailable: `) || strings.Contains(errOut, "invalid configuration") {
		t.Errorf("cosid next remote on the down store: exit %d, stderr %q", code, errOut)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
