package sqlstore

import "strconv"

// LeaseSQL is a dialect's SQL for slot leases (store.SlotLeaseStore) on the slot and
// namespace tables. The store passes each statement the arguments listed, in that
// order: a dialect with numbered placeholders ($1, ?1, @p1) may use them in any order
// and more than once; one with plain ? placeholders (MySQL) uses each once, in order.
// Namespaces and owner keys go through KeyArg; an owner key or incarnation that the
// row is to lose is passed as nil (SQL NULL).
//
// A slot row reads as these columns, in this order: the namespace's slot_limit and
// tolerance_ms, the store clock when the statement ran, then the slot's slot,
// owner_key, incarnation, last_owner_key, fence, expires_at, floor_ms, ceiling_ms and
// next_floor_ms. A slot is free when it has no owner_key or its expires_at is not
// after the store clock.
//
// The store computes every new row in Go from a row it read, with the clock of that
// read, and writes it with a compare-and-set (Take, Update) that changes the row only
// if it is still as read; zero rows changed means another call came first.
type LeaseSQL struct {
	// Candidates reads, in one statement that takes no lock, the namespace's free
	// slots best first: those whose last_owner_key is the owner key, then the
	// preferred slot, then the lowest, and at most a few. Arguments: namespace,
	// owner key, preferred slot (-1 for none). It returns no row when the namespace
	// does not exist, and one row whose slot columns are NULL when no slot is free.
	Candidates string
	// Slot reads one slot row. Arguments: namespace, slot. No row when the
	// namespace or the slot does not exist.
	Slot string
	// Take sets a free slot row to new values. Arguments: the new owner_key,
	// incarnation, last_owner_key, fence, expires_at, floor_ms, ceiling_ms,
	// next_floor_ms; then namespace and slot; then the row's fence, incarnation (""
	// for NULL), expires_at, ceiling_ms and next_floor_ms as read. It changes the row
	// only if those still match and the row is still free by the store clock.
	Take string
	// Update is Take without the clock's condition, for renewals and releases.
	Update string
	// CreateNamespace inserts the namespace row unless one exists, in which case it
	// changes no row. Arguments: namespace, slot_limit, tolerance_ms.
	CreateNamespace string
	// CreateSlots inserts the slot rows [0, slot_limit) of the namespace that do not
	// exist, with the columns' defaults (no owner, fence 0, every time 0). Arguments:
	// namespace, slot_limit. The store runs it in the transaction in which
	// CreateNamespace inserted the namespace, so that no namespace lacks its slots.
	CreateSlots string
	// KeyArg is a namespace or an owner key as the driver is to send it; nil sends
	// the string.
	KeyArg func(string) any
}

// candidateRows is how many free slots one read of Acquire returns: enough that
// acquirers racing for the same slots rarely read again, few enough to read fast.
const candidateRows = 16

// slotColumns are the columns of a slot row read (see LeaseSQL), from the derived
// table c of the clock, the namespace n and the slot s.
const slotColumns = "n.slot_limit, n.tolerance_ms, c.now_ms, s.slot, s.owner_key, s.incarnation, s.last_owner_key," +
	" s.fence, s.expires_at, s.floor_ms, s.ceiling_ms, s.next_floor_ms"

// leaseFlavour is what the lease statements that every built-in dialect shares take
// from the dialect.
type leaseFlavour struct {
	// param returns the placeholder of the n-th argument (from 1), of SQL type typ.
	param func(n int, typ string) string
	// top follows the select of Candidates and limit ends it: one of them bounds
	// its rows to candidateRows.
	top, limit string
}

// sharedLeases returns the statements of LeaseSQL that every built-in dialect writes
// alike; the dialect adds CreateNamespace, CreateSlots and KeyArg. Each statement
// uses its arguments once, in order, so that plain ? placeholders serve too. The
// clock is read once per statement, in the derived table c: PostgreSQL's
// clock_timestamp() would otherwise change from row to row.
func sharedLeases(t Tables, now string, f leaseFlavour) LeaseSQL {
	p := f.param
	from := " from (select " + now + " as now_ms) c cross join " + t.Namespace + " n"
	set := "update " + t.Slot + " set owner_key = " + p(1, "varchar") + ", incarnation = " + p(2, "varchar") +
		", last_owner_key = " + p(3, "varchar") + ", fence = " + p(4, "bigint") + ", expires_at = " + p(5, "bigint") +
		", floor_ms = " + p(6, "bigint") + ", ceiling_ms = " + p(7, "bigint") + ", next_floor_ms = " + p(8, "bigint") +
		" where namespace = " + p(9, "varchar") + " and slot = " + p(10, "integer") + " and fence = " + p(11, "bigint") +
		" and coalesce(incarnation, '') = " + p(12, "varchar") + " and expires_at = " + p(13, "bigint") +
		" and ceiling_ms = " + p(14, "bigint") + " and next_floor_ms = " + p(15, "bigint")
	return LeaseSQL{
		Candidates: "select " + f.top + slotColumns + from +
			" left join " + t.Slot + " s on s.namespace = n.namespace and s.slot < n.slot_limit" +
			" and (s.owner_key is null or s.expires_at <= c.now_ms)" +
			" where n.namespace = " + p(1, "varchar") +
			" order by case when s.last_owner_key = " + p(2, "varchar") + " then 0 when s.slot = " + p(3, "integer") + " then 1 else 2 end, s.slot" +
			f.limit,
		Slot: "select " + slotColumns + from + " join " + t.Slot + " s on s.namespace = n.namespace" +
			" where n.namespace = " + p(1, "varchar") + " and s.slot = " + p(2, "integer"),
		Take:   set + " and (owner_key is null or expires_at <= " + now + ")",
		Update: set,
	}
}

// limitClause is the " limit n" that ends Candidates where the dialect has one.
var limitClause = " limit " + strconv.Itoa(candidateRows)
