package sqlstore

import (
	"strings"
	"testing"
)

// TestSchema names the dialect and tables and refuses unknown ones.
func TestSchema(t *testing.T) {
	script, err := Schema("postgresql", Tables{Range: "ids.seq"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`create table if not exists "ids"."seq"`, `"cosid_slot"`, `"cosid_namespace"`} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if _, err := Schema("db2", Tables{}); err == nil || !strings.Contains(err.Error(), "sqlite") {
		t.Errorf("Schema of an unknown dialect: %v, want an error listing the dialects", err)
	}
	if _, err := Schema("sqlite", Tables{Range: "a-b"}); err == nil || !strings.Contains(err.Error(), "rangeTable") {
		t.Errorf("Schema with a bad name: %v, want an error naming rangeTable", err)
	}
}
