package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// sqlserverDialect is SQL Server 2019 and later through go-mssqldb (driver
// "sqlserver", whose placeholders are @p1, @p2, …). It is untested against a live
// server here: golden tests fix its SQL text, and a recording driver checks the
// types of its arguments.
type sqlserverDialect struct{}

func (sqlserverDialect) Name() string { return "sqlserver" }

func (sqlserverDialect) Detect(ctx context.Context, q Querier) bool {
	v, ok := versionProbe(ctx, q, "select @@version")
	return ok && strings.Contains(v, "Microsoft SQL")
}

func (sqlserverDialect) QuoteIdent(ident string) string { return "[" + ident + "]" }

func (sqlserverDialect) Schema(t Tables) []string { return schemaStatements("sqlserver.sql", t) }

// Ranges sends keys as bytes, to match the varbinary key column.
func (sqlserverDialect) Ranges(t Tables) Ranges {
	r := t.Range
	return numbered{
		reserve: "merge " + r + " with (holdlock) as t" +
			" using (select @p1 as range_key) as s on t.range_key = s.range_key" +
			" when matched and t.sealed = 0 and t.next_value <= 9223372036854775807 - @p2" +
			" then update set t.next_value = t.next_value + @p2" +
			" when not matched then insert (range_key, next_value, sealed) values (@p1, @p3, 0)" +
			" output inserted.next_value;",
		advance: "update " + r + " set next_value = next_value + @p2" +
			" where range_key = @p1 and sealed = 0 and next_value <= 9223372036854775807 - @p2",
		read:   "select next_value, sealed from " + r + " where range_key = @p1",
		insert: "insert into " + r + " (range_key, next_value, sealed) values (@p1, @p2, 0)",
		seal: "merge " + r + " with (holdlock) as t" +
			" using (select @p1 as range_key) as s on t.range_key = s.range_key" +
			" when matched then update set t.sealed = 1" +
			" when not matched then insert (range_key, next_value, sealed) values (@p1, 0, 1);",
		giveBack: "update " + r + " set next_value = @p2" +
			" where range_key = @p1 and next_value = @p3 and sealed = 0",
		keyArg: func(k string) any { return []byte(k) },
	}
}

// NowMillis reads sysutcdatetime(), UTC whatever the server's time zone.
func (sqlserverDialect) NowMillis() string {
	return "datediff_big(millisecond, '19700101', sysutcdatetime())"
}

// Leases sends namespaces and owner keys as bytes, to match the varbinary columns,
// and casts the owner keys that a Take or an Update may set to NULL: go-mssqldb
// sends a nil as nvarchar(1), which SQL Server does not convert to varbinary by
// itself (Msg 257), and every Release, which clears the owner key, would fail.
func (sqlserverDialect) Leases(t Tables, now string) LeaseSQL {
	l := sharedLeases(t, now, leaseFlavour{
		param:   func(n int, _ string) string { return "@p" + strconv.Itoa(n) },
		nullKey: func(n int) string { return "cast(@p" + strconv.Itoa(n) + " as varbinary(255))" },
		top:     "top (" + strconv.Itoa(candidateRows) + ") ",
		join: func(parts string) string {
			return " outer apply (select * from (" + parts + ") u where u.slot < n.slot_limit) s"
		},
		lateral: true,
	})
	l.CreateNamespace = "insert into " + t.Namespace + " (namespace, slot_limit, tolerance_ms) select @p1, @p2, @p3" +
		" where not exists (select 1 from " + t.Namespace + " with (updlock, holdlock) where namespace = @p1)"
	l.CreateSlots = "with k (slot) as (select cast(@p2 as integer) union all select slot + 1 from k where slot + 1 < @p2 + @p3)" +
		" insert into " + t.Slot + " (namespace, slot) select @p1, k.slot from k" +
		" where not exists (select 1 from " + t.Slot + " s where s.namespace = @p1 and s.slot = k.slot)" +
		" option (maxrecursion 0)"
	l.KeyArg = func(k string) any { return []byte(k) }
	return l
}

// Retryable accepts duplicate key (2627, 2601) and deadlock victim (1205), read
// through go-mssqldb's SQLErrorNumber method.
func (sqlserverDialect) Retryable(err error) bool {
	var e interface{ SQLErrorNumber() int32 }
	if !errors.As(err, &e) {
		return false
	}
	switch e.SQLErrorNumber() {
	case 2627, 2601, 1205:
		return true
	}
	return false
}

func (sqlserverDialect) addColumn(table, def string) string {
	return "alter table " + table + " add " + def
}

// lastOwnerIndex finds the index by its name, last_owner as the schema script's
// create table names it.
func (sqlserverDialect) lastOwnerIndex(_, quoted Tables) (string, []any, string) {
	return "select count(*) from sys.indexes where object_id = object_id(@p1) and name = 'last_owner'",
		[]any{quoted.Slot}, "create nonclustered index last_owner on " + quoted.Slot + " (namespace, last_owner_key, slot)"
}
