package sqlstore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testenv"
)

func TestConfig_OpensSQLStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	testenv.Opened(t, "sql", "db", `
driver: sqlite
dsn: `+path+`
timeout: 2s
options: { initSchema: true, rangeTable: main.ids, fetchPlan: transaction }
`, 2*time.Second)
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails with an error that
// names its path, the field and the allowed values.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"UnknownKey", "driver: sqlite\ndsn: x\ntimout: 2s", []string{"cosid.stores.db", "timout", "timeout"}},
		{"NoDriver", "dsn: x", []string{"cosid.stores.db.driver", "pgx, mysql, sqlserver, sqlite"}},
		{"DriverNotImported", "driver: sqlserver\ndsn: x", []string{"cosid.stores.db.driver", "github.com/microsoft/go-mssqldb"}},
		{"NoDSN", "driver: sqlite", []string{"cosid.stores.db.dsn"}},
		{"BadTimeout", "driver: sqlite\ndsn: x\ntimeout: soon", []string{"cosid.stores.db", "soon"}},
		{"NegativeTimeout", "driver: sqlite\ndsn: x\ntimeout: -1s", []string{"cosid.stores.db.timeout", "positive"}},
		{"UnknownDialect", "driver: sqlite\ndsn: x\noptions: {dialect: db2}", []string{"cosid.stores.db.options.dialect", `"db2"`, "postgresql"}},
		{"UnknownFetchPlan", "driver: sqlite\ndsn: x\noptions: {fetchPlan: lazy}", []string{"cosid.stores.db.options.fetchPlan", "statement", "transaction"}},
		{"BadTable", "driver: sqlite\ndsn: x\noptions: {slotTable: 'a b'}", []string{"cosid.stores.db.options.slotTable", `"a b"`}},
		{"UnknownOption", "driver: sqlite\ndsn: x\noptions: {initschema: true}", []string{"cosid.stores.db", "initschema"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Refused(t, "sql", "db", tc.yaml, tc.mention...)
		})
	}
}
