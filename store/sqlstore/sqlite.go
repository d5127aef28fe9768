package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// sqliteDialect is SQLite 3.35 and later; the store's embedded default through
// modernc.org/sqlite (driver "sqlite"), which is pure Go.
type sqliteDialect struct{}

func (sqliteDialect) Name() string { return "sqlite" }

func (sqliteDialect) Detect(ctx context.Context, q Querier) bool {
	_, ok := versionProbe(ctx, q, "select sqlite_version()")
	return ok
}

func (sqliteDialect) QuoteIdent(ident string) string { return `"` + ident + `"` }

func (sqliteDialect) Schema(t Tables) []string { return schemaStatements("sqlite.sql", t) }

func (sqliteDialect) Ranges(t Tables) Ranges {
	r := t.Range
	return numbered{
		reserve: "insert into " + r + " (range_key, next_value, sealed) values (?1, ?3, 0)" +
			" on conflict (range_key) do update set next_value = next_value + ?2" +
			" where not sealed and next_value <= 9223372036854775807 - ?2" +
			" returning next_value",
		advance: "update " + r + " set next_value = next_value + ?2" +
			" where range_key = ?1 and not sealed and next_value <= 9223372036854775807 - ?2",
		read:   "select next_value, sealed from " + r + " where range_key = ?1",
		insert: "insert into " + r + " (range_key, next_value, sealed) values (?1, ?2, 0)",
		seal:   "insert into " + r + " (range_key, next_value, sealed) values (?1, 0, 1) on conflict (range_key) do update set sealed = 1",
		giveBack: "update " + r + " set next_value = ?2" +
			" where range_key = ?1 and next_value = ?3 and not sealed",
	}
}

// NowMillis reads SQLite's 'now', which stays the same throughout a statement,
// whole seconds and the milliseconds apart so that no floating point rounds them.
func (sqliteDialect) NowMillis() string {
	return "(cast(strftime('%s', 'now') as integer) * 1000 + cast(substr(strftime('%f', 'now'), 4) as integer))"
}

func (sqliteDialect) Leases(t Tables, now string) LeaseSQL {
	l := sharedLeases(t, now, leaseFlavour{
		param: func(n int, _ string) string { return "?" + strconv.Itoa(n) },
		limit: limitClause,
		join:  leftJoin(""), // no lateral join; 'now' is the same throughout a statement
	})
	l.CreateNamespace = "insert into " + t.Namespace + " (namespace, slot_limit, tolerance_ms) values (?1, ?2, ?3)" +
		" on conflict (namespace) do nothing"
	l.CreateSlots = "with recursive k (slot) as (select ?2 union all select slot + 1 from k where slot + 1 < ?2 + ?3)" +
		" insert or ignore into " + t.Slot + " (namespace, slot) select ?1, slot from k"
	return l
}

// Retryable accepts SQLITE_BUSY and SQLITE_LOCKED with their extended codes, and the constraint codes of a
// duplicate key (1555 primary key, 2067 unique), read through modernc.org/sqlite's
// Code method.
func (sqliteDialect) Retryable(err error) bool {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return false
	}
	switch c := e.Code(); {
	case c&0xff == 5, c&0xff == 6, c == 1555, c == 2067:
		return true
	}
	return false
}

func (sqliteDialect) addColumn(table, def string) string {
	return "alter table " + table + " add column " + def
}

// lastOwnerIndex finds the index by its name in the catalog of the slot table's
// schema.
func (d sqliteDialect) lastOwnerIndex(_, quoted Tables) (string, []any, string) {
	schema := quoted.Slot[:strings.LastIndex(quoted.Slot, ".")+1]
	return "select count(*) from " + schema + "sqlite_master where type = 'index' and name = ?1",
		[]any{unquote(indexName(quoted.Slot, "last_owner"))}, schemaCreateIndex(d, quoted)
}
