package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestCLI_NestedTypoSuggests: a typo in a subcommand of a group (config, migrate)
// exits 1 with cobra's suggestion, also when the subcommand's flags follow it,
// instead of printing the group's help with exit 0.
func TestCLI_NestedTypoSuggests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"config", "chek"}, "unknown command \"chek\" for \"cosid config\"\n\nDid you mean this?\n\tcheck"},
		{[]string{"migrate", "from4x"}, "unknown command \"from4x\" for \"cosid migrate\"\n\nDid you mean this?\n\tfrom-4x"},
		{[]string{"migrate", "from4x", "--dsn", "legacy.db"}, "Did you mean this?\n\tfrom-4x"},
		{[]string{"config"}, "cosid config wants a subcommand"},
		{[]string{"config", "zzz"}, `unknown command "zzz" for "cosid config"`},
		{[]string{"schema"}, "want --dialect: postgresql, mysql, mariadb, sqlserver or sqlite"},
		{[]string{"decode", "order"}, "want a generator NAME and a TEXT of it, got 1 argument\n\nUsage:"},
		{[]string{"purge"}, "want --before PERIOD"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, t.TempDir(), tc.args...)
			if code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, out, errOut, tc.mention)
			}
		})
	}
}

// TestPurge_StoreAndDSN: purge takes --store (the generators on that store) and
// --dsn (the configuration's generators, on that database), as the other operator
// commands do, and counts in plurals.
func TestPurge_StoreAndDSN(t *testing.T) {
	dir, st := purgeFixture(t)
	args := []string{"purge", "--before", "20200101", "--generator", "bill", "--now", purgeNow, "--dry-run"}
	for _, extra := range [][]string{{"--store", "db"}, {"--dsn", filepath.Join(dir, "ids.db")}, {"--dsn", "ids.db", "--driver", "sqlite", "--timeout", "3s"}} {
		out, errOut, code := runCLI(t, dir, append(args, extra...)...)
		if want := "app/bill/20191231\ndry run: would seal and delete 1 key\n"; code != 0 || out != want {
			t.Errorf("purge %v = %q (exit %d, stderr %q), want %q", extra, out, code, errOut, want)
		}
	}
	out, errOut, code := runCLI(t, dir, append(args[:len(args)-1], "--yes", "--dsn", "ids.db")...)
	if code != 0 || out != "app/bill/20191231\nsealed and deleted 1 key\n" || errOut != "purged 1/1 key\n" {
		t.Errorf("purge --yes --dsn = %q (exit %d, stderr %q)", out, code, errOut)
	}
	if keys := keysOf(t, st); len(keys) == 0 || keys[0] != "app/bill/20200101" {
		t.Errorf("keys after the purge: %v, want app/bill/20191231 gone", keys)
	}
}

const slotsConfig = `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    event: { strategy: snowflake, store: db, owner-key: w1, slots: 8 }
`

// TestSlots_GeneratorNameAndJSONStyle: slots takes a Snowflake generator's NAME for
// its namespace NS/NAME, and --json writes the style of keys --json: lower-case
// names, ms, RFC 3339 times, and no 1970 zero time for a slot never leased.
func TestSlots_GeneratorNameAndJSONStyle(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, slotsConfig)
	if out, errOut, code := runCLI(t, dir, "next", "event"); code != 0 {
		t.Fatalf("next event = %q (exit %d, stderr %q)", out, code, errOut)
	}
	st, err := sqlstore.Open("sqlite", filepath.Join(dir, "ids.db"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.RaiseFloor(t.Context(), store.FloorRequest{Namespace: "app/event", Limit: 8, Tolerance: time.Second, Slot: 5, FloorMs: 42}); err != nil {
		t.Fatal(err)
	}
	text, errOut, code := runCLI(t, dir, "slots", "event")
	if code != 0 || !strings.HasPrefix(text, "namespace app/event: limit 8") {
		t.Fatalf("slots event = %q (exit %d, stderr %q)", text, code, errOut)
	}
	out, errOut, code := runCLI(t, dir, "slots", "event", "--json")
	if code != 0 || strings.Contains(out, "1970") || strings.Contains(out, "Namespace") {
		t.Fatalf("slots event --json = %q (exit %d, stderr %q)", out, code, errOut)
	}
	var got struct {
		Namespace   string           `json:"namespace"`
		Limit       int              `json:"limit"`
		ToleranceMs int64            `json:"toleranceMs"`
		StoreNow    string           `json:"storeNow"`
		Slots       []map[string]any `json:"slots"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Namespace != "app/event" || got.Limit != 8 || got.ToleranceMs != 1000 || len(got.Slots) != 2 {
		t.Fatalf("slots --json = %+v", got)
	}
	if _, err := time.Parse(time.RFC3339Nano, got.StoreNow); err != nil {
		t.Errorf("storeNow %q: %v", got.StoreNow, err)
	}
	leased, raised := got.Slots[0], got.Slots[1]
	if leased["state"] != "free" || leased["lastOwnerKey"] != "w1" || leased["fence"] != 1.0 {
		t.Errorf("the leased slot = %v", leased)
	}
	if at, ok := leased["expiresAt"].(string); !ok {
		t.Errorf("the leased slot has no expiresAt: %v", leased)
	} else if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
		t.Errorf("expiresAt %q: %v", at, err)
	}
	if _, ok := raised["expiresAt"]; ok || raised["slot"] != 5.0 || raised["nextFloorMs"] != 42.0 {
		t.Errorf("the slot never leased = %v, want no expiresAt and nextFloorMs 42", raised)
	}
}
