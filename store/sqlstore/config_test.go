package sqlstore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cosid-go/cosid/internal/testenv"
	"github.com/cosid-go/cosid/store"
)

// spec returns the Spec of a store entry whose settings are text, decoded as the
// root package decodes them.
func spec(text string) store.Spec { return testenv.Spec("db", text, nil) }

func TestConfig_OpensSQLStore(t *testing.T) {
	open, ok := store.Lookup("sql")
	if !ok {
		t.Fatal(`store type "sql" is not registered`)
	}
	path := filepath.Join(t.TempDir(), "c.db")
	st, err := open(context.Background(), spec(`
driver: sqlite
dsn: `+path+`
timeout: 2s
options: { initSchema: true, rangeTable: main.ids, fetchPlan: transaction }
`))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.(store.Timeouter).Timeout().String(); got != "2s" {
		t.Errorf("timeout = %s, want 2s", got)
	}
	if r, err := st.Reserve(t.Context(), "k", 2, 5); err != nil || r != (store.Range{Start: 5, End: 7}) {
		t.Errorf("Reserve = %v, %v; want [5, 7)", r, err)
	}
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
