package sqldb_test

import (
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

// BenchmarkKeys_Page100 lists a page of 100 keys on PostgreSQL beside its baseline,
// the same select run bare through database/sql: the store adds its checks, its
// timeout and the scan into KeyInfo.
func BenchmarkKeys_Page100(b *testing.B) {
	dsn := testenv.Server(b, testenv.Postgres)
	bk := backend{name: "postgresql", driver: "pgx", envVar: testenv.Postgres}
	st := openStore(b, bk, dsn)
	prefix := "bench/keys/" + rand.Text()[:8] + "/"
	for i := range 200 {
		if _, err := st.Reserve(b.Context(), fmt.Sprintf("%s%04d", prefix, i), 1, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Store", func(b *testing.B) {
		for b.Loop() {
			if keys, err := st.Keys(b.Context(), prefix, "", 100); err != nil || len(keys) != 100 {
				b.Fatal(len(keys), err)
			}
		}
	})
	b.Run("BareSelect", func(b *testing.B) {
		db := openDB(b, bk, dsn)
		stmt, err := db.Prepare(`select range_key, next_value, sealed from cosid_range where range_key > $1::varchar and range_key >= $2::varchar and range_key < $3::varchar order by range_key limit $4::integer`)
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		for b.Loop() {
			rows, err := stmt.QueryContext(b.Context(), "", prefix, prefix[:len(prefix)-1]+"0", 100)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var (
					k      string
					v      int64
					sealed bool
				)
				if err := rows.Scan(&k, &v, &sealed); err != nil {
					b.Fatal(err)
				}
				n++
			}
			rows.Close()
			if n != 100 {
				b.Fatal(n)
			}
		}
	})
}
