package cosid_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cosid-go/cosid"
)

// BenchmarkKeyed_SQLiteFirstID times the first id of a new key on an SQLite file,
// which opens the key's generator and waits for its first reservation, beside a bare
// Reserve of a new key on the same store: the one store round trip it needs.
func BenchmarkKeyed_SQLiteFirstID(b *testing.B) {
	ctx := context.Background()
	cfg, err := cosid.ParseConfig([]byte(fmt.Sprintf(`
cosid:
  namespace: bench
  stores:
    db: { type: sql, driver: sqlite, dsn: %s, timeout: 2s, options: { initSchema: true } }
  generators:
    tenant: { strategy: segment, store: db, keyed: true }
`, filepath.Join(b.TempDir(), "ids.db"))))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	st, err := rt.Store(ctx, "db")
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.Run("baseline/Reserve", func(b *testing.B) {
		for b.Loop() {
			n++
			if _, err := st.Reserve(ctx, "bench/bare/k"+strconv.Itoa(n), 100, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NextInt/new-key", func(b *testing.B) {
		for b.Loop() {
			n++
			src, err := rt.Source("tenant", "k"+strconv.Itoa(n))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := src.NextInt(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	live, err := rt.Source("tenant", "k1")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("NextInt/live-key", func(b *testing.B) {
		for b.Loop() {
			if _, err := live.NextInt(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
