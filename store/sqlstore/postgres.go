package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// postgresDialect is PostgreSQL 15 and later through pgx (driver "pgx").
type postgresDialect struct{}

func (postgresDialect) Name() string { return "postgresql" }

func (postgresDialect) Detect(ctx context.Context, q Querier) bool {
	v, ok := versionProbe(ctx, q, "select version()")
	return ok && strings.HasPrefix(v, "PostgreSQL")
}

func (postgresDialect) QuoteIdent(ident string) string { return `"` + ident + `"` }

func (postgresDialect) Schema(t Tables) []string { return schemaStatements("postgresql.sql", t) }

// Ranges types every parameter: pgx sends them untyped, and PostgreSQL cannot add
// two unknowns ("operator is not unique: unknown + unknown").
func (postgresDialect) Ranges(t Tables) Ranges {
	r := t.Range
	return numbered{
		reserve: "insert into " + r + " as t (range_key, next_value, sealed) values ($1::varchar, $3::bigint, false)" +
			" on conflict (range_key) do update set next_value = t.next_value + $2::bigint" +
			" where not t.sealed and t.next_value <= 9223372036854775807 - $2::bigint" +
			" returning t.next_value",
		advance: "update " + r + " set next_value = next_value + $2::bigint" +
			" where range_key = $1::varchar and not sealed and next_value <= 9223372036854775807 - $2::bigint",
		read:   "select next_value, sealed from " + r + " where range_key = $1::varchar",
		insert: "insert into " + r + " (range_key, next_value, sealed) values ($1::varchar, $2::bigint, false)",
		seal: "insert into " + r + " as t (range_key, next_value, sealed) values ($1::varchar, 0, true)" +
			" on conflict (range_key) do update set sealed = true",
		giveBack: "update " + r + " set next_value = $2::bigint" +
			" where range_key = $1::varchar and next_value = $3::bigint and not sealed",
	}
}

// NowMillis reads clock_timestamp(), the time when it is called, not when the
// transaction began (now()).
func (postgresDialect) NowMillis() string {
	return "floor(extract(epoch from clock_timestamp()) * 1000)::bigint"
}

func (postgresDialect) Leases(t Tables, now string) LeaseSQL {
	l := sharedLeases(t, now, leaseFlavour{
		param:   func(n int, typ string) string { return "$" + strconv.Itoa(n) + "::" + typ },
		limit:   limitClause,
		join:    leftJoin("lateral "),
		lateral: true,
	})
	l.CreateNamespace = "insert into " + t.Namespace + " (namespace, slot_limit, tolerance_ms) values ($1::varchar, $2::integer, $3::bigint)" +
		" on conflict (namespace) do nothing"
	l.CreateSlots = "insert into " + t.Slot + " (namespace, slot) select $1::varchar, generate_series($2::integer, $2::integer + $3::integer - 1)" +
		" on conflict (namespace, slot) do nothing"
	return l
}

// Retryable accepts the SQLSTATEs of a unique violation (23505), a serialization
// failure (40001) and a deadlock (40P01), read through pgconn.PgError's SQLState
// method.
func (postgresDialect) Retryable(err error) bool {
	switch sqlState(err) {
	case "23505", "40001", "40P01":
		return true
	}
	return false
}

// sqlState returns the SQLSTATE of a driver error that reports one through a
// SQLState method (pgx's *pgconn.PgError), without importing the driver.
func sqlState(err error) string {
	var e interface{ SQLState() string }
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return ""
}

func (postgresDialect) addColumn(table, def string) string {
	return "alter table " + table + " add column if not exists " + def
}

// lastOwnerIndex finds the index by its name, in the slot table's schema.
func (d postgresDialect) lastOwnerIndex(_, quoted Tables) (string, []any, string) {
	name := quoted.Slot[:strings.LastIndex(quoted.Slot, ".")+1] + indexName(quoted.Slot, "last_owner")
	return "select count(*) from (select to_regclass($1::text) as i) r where i is not null", []any{name}, schemaCreateIndex(d, quoted)
}
