package sqlstore

import (
	"context"
	"strconv"
	"strings"
)

// AdminDialect is a Dialect with the statements of store.Admin. Every built-in
// dialect is one; on a registered dialect that is not, the Store's admin methods fail
// with errors.ErrUnsupported.
type AdminDialect interface {
	Dialect
	// Admin returns the admin statements on the tables of t, whose names are quoted,
	// reading the store clock with the SQL expression now.
	Admin(t Tables, now string) AdminSQL
}

// AdminSQL is a dialect's SQL for store.Admin. Every statement takes its arguments
// in the order listed, each once, so that plain ? placeholders serve too; keys,
// namespaces and owner keys go through KeyArg.
type AdminSQL struct {
	// Keys reads range_key, next_value and sealed of the keys above after, at or
	// above lo and below hi, in byte order, at most limit of them. Arguments: after,
	// lo, hi, limit (hi lies above every key when the prefix has no upper bound).
	Keys string
	// Raise sets key's next_value to next where it is below next. Arguments: next,
	// key, next.
	Raise string
	// Delete deletes key's row. Arguments: key.
	Delete string
	// Slots reads the namespace's slot rows whose fence or next_floor_ms is above 0
	// (leased once, or raised), as the columns
	// of a slot row (see LeaseSQL), in slot order; one row with NULL slot columns when
	// none is; no row when the namespace does not exist. Arguments: namespace.
	Slots string
	// LeaseOf reads as a slot row the slots that the owner key holds, lowest first.
	// Arguments: namespace, owner key, owner key.
	LeaseOf string
	// KeyArg is a key, namespace or owner key as the driver is to send it; nil sends
	// the string.
	KeyArg func(string) any
}

// adminFlavour is what the admin statements of the built-in dialects take from the
// dialect: its placeholders, its byte-order collation of keys, and how it bounds a
// statement's rows.
type adminFlavour struct {
	param   func(n int, typ string) string
	collate string // follows a key column to compare and order it by bytes
	top     func(limit string) string
	limit   func(limit string) string
}

func sharedAdmin(t Tables, now string, f adminFlavour) AdminSQL {
	p, k := f.param, "range_key"+f.collate
	top, limit := "", ""
	if f.top != nil {
		top = f.top(p(4, "integer"))
	} else {
		limit = f.limit(p(4, "integer"))
	}
	from := " from (select " + now + " as now_ms) c cross join " + t.Namespace + " n"
	return AdminSQL{
		Keys: "select " + top + "range_key, next_value, sealed from " + t.Range +
			" where " + k + " > " + p(1, "varchar") + " and " + k + " >= " + p(2, "varchar") + " and " + k + " < " + p(3, "varchar") +
			" order by " + k + limit,
		Raise: "update " + t.Range + " set next_value = " + p(1, "bigint") +
			" where range_key = " + p(2, "varchar") + " and next_value < " + p(3, "bigint"),
		Delete: "delete from " + t.Range + " where range_key = " + p(1, "varchar"),
		Slots: "select " + slotColumns + from + " left join " + t.Slot + " s on s.namespace = n.namespace and (s.fence > 0 or s.next_floor_ms > 0)" +
			" where n.namespace = " + p(1, "varchar") + " order by s.slot",
		LeaseOf: "select " + slotColumns + from + " join " + t.Slot + " s on s.namespace = n.namespace" +
			" where n.namespace = " + p(1, "varchar") + " and s.last_owner_key = " + p(2, "varchar") +
			" and s.owner_key = " + p(3, "varchar") + " order by s.slot",
	}
}

func limitParam(limit string) string { return " limit " + limit }

// Admin compares keys in the C collation: byte order of UTF-8, whatever the
// database's default. That order cannot use the primary key's index unless the
// key column's collation is byte order too; then the Store uses adminByteOrder.
func (d postgresDialect) Admin(t Tables, now string) AdminSQL { return d.admin(t, now, ` collate "C"`) }

func (postgresDialect) admin(t Tables, now, collate string) AdminSQL {
	return sharedAdmin(t, now, adminFlavour{
		param:   func(n int, typ string) string { return "$" + strconv.Itoa(n) + "::" + typ },
		collate: collate,
		limit:   limitParam,
	})
}

// byteOrderCollation reports whether the range_key column of the PostgreSQL table
// (a quoted name) orders keys by their bytes: its collation, or the database's
// default, is C, POSIX or C.UTF-8, which sort UTF-8 by code point. A probe that
// fails means no.
func byteOrderCollation(ctx context.Context, q Querier, table string) bool {
	var coll string
	err := q.QueryRowContext(ctx, "select case when co.collname = 'default'"+
		" then (select datcollate from pg_database where datname = current_database())"+
		" else coalesce(co.collcollate, co.collname) end"+
		" from pg_attribute a join pg_collation co on co.oid = a.attcollation"+
		" where a.attrelid = $1::regclass and a.attname = 'range_key'", table).Scan(&coll)
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.ReplaceAll(coll, "-", "")) {
	case "c", "posix", "c.utf8":
		return true
	}
	return false
}

// Admin compares the varbinary keys byte by byte.
func (mysqlDialect) Admin(t Tables, now string) AdminSQL {
	return sharedAdmin(t, now, adminFlavour{param: func(int, string) string { return "?" }, limit: limitParam})
}

// Admin compares the varbinary keys byte by byte.
func (sqlserverDialect) Admin(t Tables, now string) AdminSQL {
	a := sharedAdmin(t, now, adminFlavour{
		param: func(n int, _ string) string { return "@p" + strconv.Itoa(n) },
		top:   func(limit string) string { return "top (" + limit + ") " },
	})
	a.KeyArg = func(k string) any { return []byte(k) }
	return a
}

// Admin compares keys with SQLite's default collation, BINARY: byte order.
func (sqliteDialect) Admin(t Tables, now string) AdminSQL {
	return sharedAdmin(t, now, adminFlavour{
		param: func(n int, _ string) string { return "?" + strconv.Itoa(n) },
		limit: limitParam,
	})
}
