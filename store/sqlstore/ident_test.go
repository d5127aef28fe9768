package sqlstore

import (
	"strings"
	"testing"
)

func TestCheckTableName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"cosid_range", true},
		{"app.cosid_range", true},
		{"_x9", true},
		{"Order", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 63) + "." + strings.Repeat("b", 63), true},
		{"", false},
		{strings.Repeat("a", 64), false},
		{"9range", false},
		{"a.b.c", false},
		{".a", false},
		{"a.", false},
		{"range-key", false},
		{`a"b`, false},
		{"a`b", false},
		{"a]b", false},
		{"a b", false},
		{"a;drop table x", false},
		{"tablé", false},
		{"a\x00", false},
	}
	for _, tc := range tests {
		if err := checkTableName(tc.name); (err == nil) != tc.ok {
			t.Errorf("checkTableName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// FuzzCheckTableName checks that every name the validator accepts quotes, in every
// built-in dialect, to SQL that holds exactly its dotted parts: nothing in a name can
// close a quote or start another token.
func FuzzCheckTableName(f *testing.F) {
	for _, s := range []string{"cosid_range", "app.cosid_range", `a"b`, "a`b", "a]b", "x; drop", "é", "a..b", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if checkTableName(name) != nil {
			return
		}
		parts := strings.Split(name, ".")
		if len(parts) > 2 {
			t.Fatalf("accepted %q with %d parts", name, len(parts))
		}
		for _, p := range parts {
			if p == "" || len(p) > maxIdentLen {
				t.Fatalf("accepted %q with part %q", name, p)
			}
			for _, c := range []byte(p) {
				if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
					t.Fatalf("accepted %q with byte %q", name, c)
				}
			}
		}
		for _, d := range builtins {
			q := quoteTableName(d, name)
			if want := len(name) + 2*len(parts); len(q) != want {
				t.Fatalf("%s quotes %q as %q, want %d bytes", d.Name(), name, q, want)
			}
		}
	})
}

// TestIndexName_UniquePerTableWithinTheLimit checks that the index names of the
// schema scripts follow their table's name, without its schema, and that long table
// names, which a database would cut to the same name, get distinct names within the
// limit.
func TestIndexName_UniquePerTableWithinTheLimit(t *testing.T) {
	long := strings.Repeat("t", maxIdentLen-1)
	tests := []struct {
		table, want string
	}{
		{`"cosid_slot"`, `"cosid_slot_last_owner"`},
		{`"ids"."Slot"`, `"Slot_last_owner"`},
		{"`app`.`slot`", "`slot_last_owner`"},
		{`[` + long + `a]`, `[` + long[:maxIdentLen-9] + `_68684459]`},
		{`"ids"."` + long + `b"`, `"` + long[:maxIdentLen-9] + `_829c9712"`},
	}
	for _, tc := range tests {
		got := indexName(tc.table, "last_owner")
		if got != tc.want {
			t.Errorf("indexName(%s) = %s, want %s", tc.table, got, tc.want)
		}
		if n := len(got) - 2; n > maxIdentLen {
			t.Errorf("indexName(%s) is %d bytes, over the limit of %d", tc.table, n, maxIdentLen)
		}
	}
}
