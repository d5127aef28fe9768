package cosidgorm_test

import (
	"path/filepath"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/orm/cosidgorm"
)

// dialect opens a gorm database of its own for a test.
type dialect struct {
	name string
	open func(t testing.TB) gorm.Dialector
}

var dialects = []dialect{
	{"SQLite", func(t testing.TB) gorm.Dialector {
		return sqlite.Open(filepath.Join(t.TempDir(), "gorm.db") + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	}},
	{"PostgreSQL", openPostgres},
}

// openPostgres returns a dialector on a schema of the test's own in the database of
// COSID_TEST_POSTGRES.
func openPostgres(t testing.TB) gorm.Dialector {
	return postgres.Open(testenv.PostgresSchema(t, "cosidgorm"))
}

// openDB opens d with the plugin of rt.
func openDB(t testing.TB, d dialect, rt *cosid.Runtime, models ...any) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(d.open(t), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
	if rt != nil {
		if err := db.Use(cosidgorm.New(rt)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatal(err)
	}
	return db
}
