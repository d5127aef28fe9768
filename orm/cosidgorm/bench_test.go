package cosidgorm_test

import (
	"path/filepath"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/ormtest"
)

// benchRow is the row of the batch benchmark.
type benchRow struct {
	ID   cosid.ID `gorm:"primaryKey;autoIncrement:false" cosid:"order"`
	Item string
}

// BenchmarkCreate1000 times a gorm batch create of 1,000 rows on SQLite, with the
// plugin filling their ids beside the baseline without it, whose ids the loop
// counts out; and the same creates in gorm's DryRun, which builds the statement
// and runs no SQL, to show the plugin's own cost beside gorm's.
func BenchmarkCreate1000(b *testing.B) {
	rows := make([]benchRow, 1000)
	for _, dry := range []bool{false, true} {
		prefix := "SQLite/"
		if dry {
			prefix = "DryRun/"
		}
		b.Run(prefix+"without", func(b *testing.B) {
			db := benchDB(b, nil, dry)
			next := cosid.ID(1)
			b.ReportAllocs()
			for b.Loop() {
				for i := range rows {
					rows[i] = benchRow{ID: next, Item: "x"}
					next++
				}
				if err := db.Create(&rows).Error; err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(prefix+"with", func(b *testing.B) {
			db := benchDB(b, ormtest.Runtime(b, nil), dry)
			b.ReportAllocs()
			for b.Loop() {
				for i := range rows {
					rows[i] = benchRow{Item: "x"}
				}
				if err := db.Create(&rows).Error; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchDB opens a SQLite database of its own for a benchmark, with the plugin of
// rt unless it is nil.
func benchDB(b *testing.B, rt *cosid.Runtime, dry bool) *gorm.DB {
	db := openDB(b, dialect{"SQLite", func(b testing.TB) gorm.Dialector {
		return sqlite.Open(filepath.Join(b.TempDir(), "bench.db") + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	}}, rt, &benchRow{})
	return db.Session(&gorm.Session{DryRun: dry, SkipDefaultTransaction: false})
}
