package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// mysqlDialect is MySQL 8.4 or, with mariadb set, MariaDB 10.11 and later, both
// through go-sql-driver/mysql (driver "mysql"). They share the SQL.
type mysqlDialect struct{ mariadb bool }

func (d mysqlDialect) Name() string {
	if d.mariadb {
		return "mariadb"
	}
	return "mysql"
}

// Detect reads version(), which MariaDB marks with "MariaDB" (also behind the MySQL
// driver), and @@version_comment, which only the MySQL family knows.
func (d mysqlDialect) Detect(ctx context.Context, q Querier) bool {
	var version, comment string
	if err := q.QueryRowContext(ctx, "select version(), @@version_comment").Scan(&version, &comment); err != nil {
		return false
	}
	return strings.Contains(version, "MariaDB") == d.mariadb
}

func (mysqlDialect) QuoteIdent(ident string) string { return "`" + ident + "`" }

func (mysqlDialect) Schema(t Tables) []string { return schemaStatements("mysql.sql", t) }

func (mysqlDialect) Ranges(t Tables) Ranges {
	r := t.Range
	return mysqlRanges{
		// Both branches set last_insert_id, which the statement's own result
		// reports: the insert through values(), the update through one arm of the if.
		// The refusing arm sets it to 0, which no reservation returns (next ≥ size ≥
		// 1), so a refused reservation never reports the value that values() set.
		reserve: "insert into " + r + " (range_key, next_value, sealed) values (?, last_insert_id(?), false)" +
			" on duplicate key update next_value = if(not sealed and next_value <= 9223372036854775807 - ?," +
			" last_insert_id(next_value + ?), last_insert_id(0) + next_value)",
		advance: "update " + r + " set next_value = next_value + ?" +
			" where range_key = ? and not sealed and next_value <= 9223372036854775807 - ?",
		read:   "select next_value, sealed from " + r + " where range_key = ?",
		insert: "insert into " + r + " (range_key, next_value, sealed) values (?, ?, false)",
		seal:   "insert into " + r + " (range_key, next_value, sealed) values (?, 0, true) on duplicate key update sealed = true",
		giveBack: "update " + r + " set next_value = ?" +
			" where range_key = ? and next_value = ? and not sealed",
	}
}

// NowMillis reads utc_timestamp(6), the statement's start in UTC whatever the
// session's time zone, and counts its milliseconds from the epoch without a time zone
// conversion (unix_timestamp would make one).
func (mysqlDialect) NowMillis() string {
	return "timestampdiff(microsecond, '1970-01-01 00:00:00', utc_timestamp(6)) div 1000"
}

// Leases creates the slot rows with a recursive query that doubles the rows at each
// step: MySQL stops a recursion at 1,000 steps (cte_max_recursion_depth), MariaDB
// too (max_recursive_iterations), and the rows made at once may reach the 2^22 slots
// of a namespace, 22 doublings.
func (mysqlDialect) Leases(t Tables, now string) LeaseSQL {
	l := sharedLeases(t, now, leaseFlavour{
		param:      func(int, string) string { return "?" },
		positional: true,
		limit:      limitClause,
		// MariaDB has no lateral join: the parts of Candidates read the clock
		// again, the statement's start, and take the arguments themselves
		// (CandidatesArgs); with arguments read from a derived table, MariaDB
		// sorts all the namespace's rows instead of using the indexes.
		join: leftJoin(""),
	})
	l.CreateNamespace = "insert ignore into " + t.Namespace + " (namespace, slot_limit, tolerance_ms) values (?, ?, ?)"
	l.CreateSlots = "insert ignore into " + t.Slot + " (namespace, slot) select ?, cast(? as signed) + k.slot from (" +
		"with recursive k (slot_limit, slot, width) as (select cast(? as signed), 0, 1" +
		" union all select k.slot_limit, k.slot + d.d * k.width, k.width * 2 from k cross join (select 0 as d union all select 1) d" +
		" where k.width < k.slot_limit)" +
		" select slot_limit, slot, width from k) k where k.width >= k.slot_limit and k.slot < k.slot_limit"
	return l
}

// Retryable accepts duplicate key (1062), deadlock (1213) and lock wait timeout
// (1205). go-sql-driver/mysql's *MySQLError has no method to read its number
// through, so the number is read from its text, "Error 1062 (23000): …", which the
// driver has kept for years.
func (mysqlDialect) Retryable(err error) bool {
	switch mysqlErrorNumber(err) {
	case 1062, 1213, 1205:
		return true
	}
	return false
}

func mysqlErrorNumber(err error) int {
	for ; err != nil; err = errors.Unwrap(err) {
		var n int
		if _, scanErr := fmt.Sscanf(err.Error(), "Error %d", &n); scanErr == nil {
			return n
		}
	}
	return 0
}

type mysqlRanges struct{ reserve, advance, read, insert, seal, giveBack string }

// Reserve reads the new value from the statement's own result, never from a later
// select last_insert_id(): that could run on another pooled connection.
func (m mysqlRanges) Reserve(ctx context.Context, q Querier, key string, size, created int64) (int64, bool, error) {
	res, err := q.ExecContext(ctx, m.reserve, key, created, size, size)
	if err != nil {
		return 0, false, err
	}
	next, err := res.LastInsertId()
	if err != nil {
		return 0, false, err
	}
	return next, next != 0, nil
}

func (m mysqlRanges) Advance(ctx context.Context, q Querier, key string, size int64) (bool, error) {
	return execOne(ctx, q, m.advance, size, key, size)
}

func (m mysqlRanges) Read(ctx context.Context, q Querier, key string) (int64, bool, bool, error) {
	return readRow(ctx, q, m.read, key)
}

func (m mysqlRanges) Insert(ctx context.Context, q Querier, key string, next int64) error {
	_, err := q.ExecContext(ctx, m.insert, key, next)
	return err
}

func (m mysqlRanges) Seal(ctx context.Context, q Querier, key string) error {
	_, err := q.ExecContext(ctx, m.seal, key)
	return err
}

// GiveBack's statement changes the value whenever it matches (start < end), so the
// rows the driver reports are the rows matched, whether or not the DSN sets
// clientFoundRows.
func (m mysqlRanges) GiveBack(ctx context.Context, q Querier, key string, start, end int64) (bool, error) {
	return execOne(ctx, q, m.giveBack, start, key, end)
}

func (mysqlDialect) addColumn(table, def string) string {
	return "alter table " + table + " add column " + def
}

// lastOwnerIndex finds the index by its name, last_owner as the schema script's
// create table names it, in the slot table's schema (the connection's database by
// default).
func (mysqlDialect) lastOwnerIndex(t, quoted Tables) (string, []any, string) {
	var schema any
	table := t.Slot
	if s, name, ok := strings.Cut(t.Slot, "."); ok {
		schema, table = s, name
	}
	return "select count(*) from information_schema.statistics where table_schema = coalesce(?, database()) and table_name = ? and index_name = 'last_owner'",
		[]any{schema, table}, "create index last_owner on " + quoted.Slot + " (namespace, last_owner_key, slot)"
}
