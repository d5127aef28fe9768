package cosid_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testenv"
	"github.com/cosid-go/cosid/store"
)

// TestErrors_StoreProblemsAreUnavailableNotConfig checks the two kinds of failure: a
// store that cannot be used now (a dead port, a refused password, a full slot
// namespace) answers ErrUnavailable naming the store and saying what the server
// said, never ErrConfig; Open itself succeeds.
func TestErrors_StoreProblemsAreUnavailableNotConfig(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		store func(t *testing.T) string
		gen   string
		says  []string
	}{
		{"DeadPort", func(*testing.T) string {
			return "{type: sql, driver: pgx, dsn: 'postgres://postgres@127.0.0.1:1/test?sslmode=disable', timeout: 1s}"
		}, "{strategy: segment, store: db}", []string{`store "db" unavailable`, "connect"}},
		{"RefusedPassword", func(t *testing.T) string {
			c, err := mysql.ParseDSN(testenv.Server(t, testenv.MySQL))
			if err != nil {
				t.Fatal(err)
			}
			c.Passwd = "not-the-password"
			return "{type: sql, driver: mysql, dsn: '" + c.FormatDSN() + "', timeout: 2s}"
		}, "{strategy: segment, store: db}", []string{`store "db" unavailable`, "Access denied"}},
		{"FullNamespace", func(*testing.T) string {
			return "{type: sql, driver: sqlite, dsn: " + filepath.Join(dir, "slots.db") + ", options: {initSchema: true}}"
		}, "{strategy: snowflake, store: db, slots: 1, owner-key: second}", []string{`generator "ev" unavailable`, "no free slot"}},
	}
	// The full namespace: a first runtime holds its only slot.
	first := mustOpen(t, "cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: "+filepath.Join(dir, "slots.db")+
		", options: {initSchema: true}}\n  generators:\n    ev: {strategy: snowflake, store: db, slots: 1, owner-key: first}\n")
	if _, err := first.Next("ev"); err != nil {
		t.Fatalf("the first owner: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := openYAML(t, "cosid:\n  stores:\n    db: "+tc.store(t)+"\n  generators:\n    ev: "+tc.gen+"\n")
			if err != nil {
				t.Fatalf("Open: %v; a store problem must not fail Open", err)
			}
			_, err = rt.Next("ev")
			t.Log(err)
			if !errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
				t.Fatalf("Next: %v; want ErrUnavailable, not ErrConfig", err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Next: %v; want it to say %q", err, s)
				}
			}
			if strings.Count(err.Error(), "cosid: ") != 1 {
				t.Errorf("Next: %v; want one cosid: prefix", err)
			}
			if tc.name == "FullNamespace" && !errors.Is(err, store.ErrNoFreeSlot) {
				t.Errorf("Next: %v; want it to wrap store.ErrNoFreeSlot", err)
			}
		})
	}
}
