package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// liveStore is a database the admin commands run against, by --dsn.
type liveStore struct{ name, driver, env string }

var liveStores = []liveStore{
	{"postgresql", "pgx", testenv.Postgres},
	{"mariadb", "mysql", testenv.MySQL},
	{"sqlite", "sqlite", ""},
}

// dsn returns the store's DSN, a new SQLite file for SQLite.
func (l liveStore) dsn(t *testing.T) string {
	if l.env == "" {
		return filepath.Join(t.TempDir(), "admin.db")
	}
	return testenv.Server(t, l.env)
}

func (l liveStore) open(t *testing.T, dsn string) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(l.driver, dsn, 10*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (l liveStore) args(dsn string, args ...string) []string {
	return append(args, "--dsn", dsn, "--driver", l.driver)
}

// uniquePrefix returns a key prefix of this test run.
func uniquePrefix(t *testing.T) string {
	return "clitest/" + strings.ToLower(rand.Text()[:10]) + "/"
}

func TestKeys_ListsKeysOnEveryStore(t *testing.T) {
	for _, l := range liveStores {
		t.Run(l.name, func(t *testing.T) {
			dsn := l.dsn(t)
			st := l.open(t, dsn)
			p := uniquePrefix(t)
			for i, k := range []string{"order", "bill/20261027", "bill/20261026"} {
				if _, err := st.Reserve(t.Context(), p+k, int64(10*(i+1)), 1); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Seal(t.Context(), p+"bill/20261026"); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI(t, t.TempDir(), l.args(dsn, "keys", "--prefix", p)...)
			want := fmt.Sprintf("KEY%sNEXT  SEALED\n%sbill/20261026  31    yes\n%sbill/20261027  21    no\n%sorder%s11    no\n",
				strings.Repeat(" ", len(p)+len("bill/20261026")-1), p, p, p, strings.Repeat(" ", len("bill/20261026")-len("order")+2))
			if code != 0 || out != want {
				t.Fatalf("cosid keys = exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errOut, out, want)
			}
			out, _, code = runCLI(t, t.TempDir(), l.args(dsn, "keys", "--prefix", p+"bill/", "--json")...)
			wantJSON := fmt.Sprintf(`{"key":"%sbill/20261026","next":31,"sealed":true}`+"\n"+`{"key":"%sbill/20261027","next":21,"sealed":false}`+"\n", p, p)
			if code != 0 || out != wantJSON {
				t.Errorf("cosid keys --json = %q (exit %d), want %q", out, code, wantJSON)
			}
		})
	}
}

func TestSeal_SealsKeys(t *testing.T) {
	for _, l := range liveStores {
		t.Run(l.name, func(t *testing.T) {
			dsn := l.dsn(t)
			st := l.open(t, dsn)
			p := uniquePrefix(t)
			if _, err := st.Reserve(t.Context(), p+"a", 5, 1); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI(t, t.TempDir(), l.args(dsn, "seal", p+"a", p+"new")...)
			if code != 1 || out != "" || !strings.Contains(errOut, fmt.Sprintf("key %q does not exist, so nothing was sealed", p+"new")) {
				t.Fatalf("cosid seal of a missing key = %q (exit %d, stderr %q), want a refusal", out, code, errOut)
			}
			if _, err := st.Reserve(t.Context(), p+"a", 1, 0); err != nil {
				t.Fatalf("Reserve(%q) after the refused seal: %v", p+"a", err)
			}
			out, errOut, code = runCLI(t, t.TempDir(), l.args(dsn, "seal", p+"a", p+"new", "--create")...)
			want := "sealed " + p + "a at next value 7\nsealed " + p + "new at next value 1\n" // the default initial offset
			if code != 0 || out != want {
				t.Fatalf("cosid seal = %q (exit %d, stderr %q), want %q", out, code, errOut, want)
			}
			for _, k := range []string{p + "a", p + "new"} {
				if _, err := st.Reserve(t.Context(), k, 1, 0); !errors.Is(err, store.ErrSealed) {
					t.Errorf("Reserve(%q) after cosid seal = %v, want ErrSealed", k, err)
				}
			}
		})
	}
}

// TestSeal_CreateStartsAtTheGeneratorsInitialOffset checks that seal --create makes
// a missing key where its generator would have started it: at the generator's
// initial offset, for its own key and for one of its periods.
func TestSeal_CreateStartsAtTheGeneratorsInitialOffset(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, strings.Replace(billConfig, "period: YEAR_MONTH_DAY", "period: YEAR_MONTH_DAY\n      initial-offset: 1000", 1))
	// seal works on a store that exists, and creates none: make the configuration's.
	st, err := sqlstore.Open("sqlite", filepath.Join(dir, "ids.db"), 10*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, errOut, code := runCLI(t, dir, "seal", "--create", "app/bill/20250101", "app/order", "app/other")
	want := "sealed app/bill/20250101 at next value 1000\nsealed app/order at next value 1\nsealed app/other at next value 1\n"
	if code != 0 || out != want {
		t.Errorf("cosid seal --create = %q (exit %d, stderr %q), want %q", out, code, errOut, want)
	}
}

func TestSlots_PrintsTheSlotTable(t *testing.T) {
	for _, l := range liveStores {
		t.Run(l.name, func(t *testing.T) {
			dsn := l.dsn(t)
			st := l.open(t, dsn)
			ns := uniquePrefix(t) + "event"
			req := store.LeaseRequest{Namespace: ns, Limit: 16, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
			var leases []store.Lease
			for _, owner := range []string{"host-a", "host-b"} {
				req.OwnerKey = owner
				l, err := st.Acquire(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				leases = append(leases, l)
			}
			if err := st.Release(t.Context(), leases[1], leases[1].Floor); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI(t, t.TempDir(), l.args(dsn, "slots", ns)...)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if code != 0 || len(lines) != 4 {
				t.Fatalf("cosid slots = exit %d, stderr %q, stdout\n%s", code, errOut, out)
			}
			if want := "namespace " + ns + ": limit 16, tolerance 1s, store time "; !strings.HasPrefix(lines[0], want) {
				t.Errorf("first line %q, want it to start %q", lines[0], want)
			}
			rows := []*regexp.Regexp{
				regexp.MustCompile(`^SLOT +STATE +OWNER +LAST OWNER +FENCE +EXPIRES +FLOOR +CEILING +NEXT FLOOR$`),
				regexp.MustCompile(fmt.Sprintf(`^0 +held +host-a +host-a +1 +\S+Z +%d +%d +%d$`, leases[0].Floor, leases[0].Ceiling, leases[0].Ceiling+1)),
				regexp.MustCompile(fmt.Sprintf(`^1 +free +- +host-b +1 +\S+Z +%d +%d +%d$`, leases[1].Floor, leases[1].Ceiling, leases[1].Floor+1)),
			}
			for i, re := range rows {
				if !re.MatchString(lines[i+1]) {
					t.Errorf("line %d = %q, want it to match %s", i+2, lines[i+1], re)
				}
			}
			_, errOut, code = runCLI(t, t.TempDir(), l.args(dsn, "slots", ns+"-none")...)
			if code != 1 || !strings.Contains(errOut, "not found") {
				t.Errorf("slots of an unknown namespace: exit %d, stderr %q", code, errOut)
			}
		})
	}
}

func TestAdminCommands_BadInputExits1(t *testing.T) {
	dir := writeConfig(t, billConfig)
	if out, errOut, code := runCLI(t, dir, "next", "order"); code != 0 { // the store the inspections read
		t.Fatalf("cosid next order: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"keys", "--store", "nope"}, `--store "nope": no such store in the configuration; it has: db`},
		{[]string{"keys", "--dsn", "x.db", "--store", "db"}, "give one"},
		{[]string{"keys", "--driver", "pgx"}, "--driver needs --dsn"},
		{[]string{"keys", "--prefix", "\xff"}, "prefix"},
		{[]string{"seal"}, "want the KEYs to seal"},
		{[]string{"seal", "app/nope"}, `key "app/nope" does not exist`},
		{[]string{"seal", ""}, "key is empty"},
		{[]string{"slots"}, "want one NAMESPACE (such as app/event) or the NAME of a Snowflake generator, got 0 arguments"},
		{[]string{"slots", "a", "b"}, "got 2 arguments"},
		{[]string{"slots", "bill"}, "give the namespace, or the NAME of a Snowflake generator of the configuration (it has: none)"},
		{[]string{"decode"}, "want a generator NAME and a TEXT of it, got 0 arguments"},
		{[]string{"purge", "--before", "2026", "--store", "nope"}, `--store "nope": no such store`},
		{[]string{"purge", "--before", "2026", "--store", "db", "--dsn", "x.db"}, "give one"},
		{[]string{"purge", "--before", "2026", "--dsn", "x.db", "--timeout", "0s"}, "--timeout 0s: want > 0"},
		{[]string{"slots", strings.Repeat("n", 101)}, "namespace"},
		{[]string{"purge"}, "want --before PERIOD, the first period to keep"},
		{[]string{"purge", "--before", "2026-10"}, "want a period such as 2026"},
		{[]string{"purge", "--before", "20261032"}, "want a period such as 2026"},
		{[]string{"purge", "--before", "2026", "--generator", "order"}, `--generator "order": a segment generator, which has no periods; purge deletes the old period keys of periodic-segment generators`},
		// An unknown generator is worded one way on every command, with a "did you mean".
		{[]string{"purge", "--before", "2026", "--generator", "bil"}, `cosid: --generator: unknown generator "bil"; did you mean bill? configured: bill, order` + "\n"},
		{[]string{"decode", "bil", "20261027-000001"}, `cosid: unknown generator "bil"; did you mean bill? configured: bill, order` + "\n"},
		{[]string{"next", "bil"}, `cosid: unknown generator "bil"; did you mean bill? configured: bill, order` + "\n"},
		{[]string{"next", "invoice"}, `cosid: unknown generator "invoice"; configured: bill, order` + "\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, dir, tc.args...)
			if code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, out, errOut, tc.mention)
			}
		})
	}
}

// TestAdminCommands_ThroughHTTPStore runs keys, seal and slots on a store of type
// http: a cosid serve of a memstore, behind a token.
func TestAdminCommands_ThroughHTTPStore(t *testing.T) {
	backend := memstore.New()
	rt, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	srv, err := server.New(rt, server.WithStore(backend), server.WithToken("s3cret"), server.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("cosid:\n  stores:\n    proxy: { type: http, url: %q, token-file: token }\n", hs.URL)
	if err := os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := backend.Reserve(t.Context(), "app/order", 41, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := backend.Acquire(t.Context(), store.LeaseRequest{Namespace: "app/event", OwnerKey: "w1", Limit: 4, TTL: time.Hour, Preferred: -1}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"seal", "app/order"}, "sealed app/order at next value 42\n"},
		{[]string{"keys", "--prefix", "app/"}, "KEY        NEXT  SEALED\napp/order  42    yes\n"}, // the server's calls wrote .cosid/store-id
	}
	for _, s := range steps {
		if out, errOut, code := runCLI(t, dir, s.args...); code != 0 || out != s.want {
			t.Errorf("cosid %v = %q (exit %d, stderr %q), want %q", s.args, out, code, errOut, s.want)
		}
	}
	if out, errOut, code := runCLI(t, dir, "slots", "app/event"); code != 0 || !regexp.MustCompile(`\n0 +held +w1 +w1 +1 `).MatchString(out) {
		t.Errorf("cosid slots through http = %q (exit %d, stderr %q)", out, code, errOut)
	}
}
