package sqlstore

import "strconv"

// LeaseSQL is a dialect's SQL for slot leases (store.SlotLeaseStore) on the slot and
// namespace tables. The store passes each statement the arguments listed, in that
// order: a dialect with numbered placeholders ($1, ?1, @p1) may use them in any order
// and more than once; one with plain ? placeholders (MySQL) uses each once, in order,
// except in Candidates, whose arguments it lists in CandidatesArgs. Namespaces and
// owner keys go through KeyArg; an owner key or incarnation that the row is to lose
// is passed as nil (SQL NULL).
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
	// preferred slot, then the lowest, and at most a few, none twice. Arguments:
	// namespace, owner key, preferred slot (-1 for none), or those CandidatesArgs
	// lists. It returns no row when the namespace does not exist, and one row whose
	// slot columns are NULL when no slot is free. Its cost should not grow with the
	// namespace: the built-in dialects look each kind of candidate up in an index
	// and stop at a few.
	Candidates string
	// CandidatesArgs lists the arguments of Candidates in the order it takes them,
	// for a dialect with plain ? placeholders that needs one more than once (each
	// part of the built-in MySQL statement names its own). Nil means namespace, owner
	// key, preferred slot.
	CandidatesArgs []CandidateArg
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
	// CreateSlots inserts the slot rows [first, first+count) of the namespace that do
	// not exist, with the columns' defaults (no owner, fence 0, every time 0).
	// Arguments: namespace, first, count. The store makes a namespace's rows as its
	// slots are taken (storekit.SlotsToProvision): the first few in the transaction
	// in which CreateNamespace inserted the namespace, more when every row is leased,
	// and a preferred slot's alone; never one per slot of a namespace of millions.
	CreateSlots string
	// CountHeld counts the slot rows of the namespace that are leased by the store
	// clock: an owner_key, and an expires_at after the clock. Arguments: namespace.
	// The store runs it only when no row is free, to size the next rows it makes.
	// A dialect without it (empty) has every row of a namespace made at its creation.
	CountHeld string
	// KeyArg is a namespace or an owner key as the driver is to send it; nil sends
	// the string.
	KeyArg func(string) any
}

// CandidateArg is an argument of LeaseSQL.Candidates.
type CandidateArg int

// The arguments of LeaseSQL.Candidates.
const (
	CandidateNamespace CandidateArg = iota + 1 // the namespace, through KeyArg
	CandidateOwnerKey                          // the owner key, through KeyArg
	CandidatePreferred                         // the preferred slot, -1 for none
)

func (a CandidateArg) String() string {
	switch a {
	case CandidateNamespace:
		return "namespace"
	case CandidateOwnerKey:
		return "owner key"
	case CandidatePreferred:
		return "preferred slot"
	}
	return "CandidateArg(" + strconv.Itoa(int(a)) + ")"
}

// defaultCandidatesArgs are the arguments of Candidates when CandidatesArgs is nil.
var defaultCandidatesArgs = []CandidateArg{CandidateNamespace, CandidateOwnerKey, CandidatePreferred}

// candidateArgs returns the arguments of q.Candidates: namespace and owner are
// through KeyArg already.
func candidateArgs(q LeaseSQL, namespace, owner any, preferred int) []any {
	order := q.CandidatesArgs
	if order == nil {
		order = defaultCandidatesArgs
	}
	args := make([]any, len(order))
	for i, a := range order {
		switch a {
		case CandidateNamespace:
			args[i] = namespace
		case CandidateOwnerKey:
			args[i] = owner
		case CandidatePreferred:
			args[i] = preferred
		}
	}
	return args
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
	// positional means that param returns plain ?: each one takes the next argument,
	// and Candidates, which needs some twice, lists them in CandidatesArgs.
	positional bool
	// top follows the select of a statement bounded to candidateRows rows and limit
	// ends it: one of them bounds it.
	top, limit string
	// join joins the derived table s of the parts of Candidates to the clock c and
	// the namespace n, keeping the slots below n.slot_limit. With lateral, the parts
	// read the clock from c (PostgreSQL's left join lateral, SQL Server's outer
	// apply); a dialect without lateral joins has each part read the clock again,
	// which only a clock that reads the same throughout a statement allows (MySQL's
	// and SQLite's).
	join    func(parts string) string
	lateral bool
	// nullKey, when set, returns the placeholder of the n-th argument where it is an
	// owner key that may be nil (SQL NULL): one the driver sends untyped, and that
	// the database would not convert to the key column by itself, gets a cast here.
	nullKey func(n int) string
}

// leftJoin is the join of leaseFlavour for a dialect whose joins can be lateral
// (lateral is "lateral ") or not ("").
func leftJoin(lateral string) func(string) string {
	return func(parts string) string {
		return " left join " + lateral + "(" + parts + ") s on s.slot < n.slot_limit"
	}
}

// sharedLeases returns the statements of LeaseSQL that every built-in dialect writes
// alike; the dialect adds CreateNamespace, CreateSlots and KeyArg. Each statement but
// Candidates uses its arguments once, in order, so that plain ? placeholders serve
// too. The clock is read once per statement, in the derived table c: PostgreSQL's
// clock_timestamp() would otherwise change from row to row (Candidates reads it again
// only where the dialect's clock reads the same throughout a statement; see
// leaseFlavour.join).
func sharedLeases(t Tables, now string, f leaseFlavour) LeaseSQL {
	p := f.param
	nullKey := f.nullKey
	if nullKey == nil {
		nullKey = func(n int) string { return p(n, "varchar") }
	}
	from := " from (select " + now + " as now_ms) c cross join " + t.Namespace + " n"
	set := "update " + t.Slot + " set owner_key = " + nullKey(1) + ", incarnation = " + p(2, "varchar") +
		", last_owner_key = " + nullKey(3) + ", fence = " + p(4, "bigint") + ", expires_at = " + p(5, "bigint") +
		", floor_ms = " + p(6, "bigint") + ", ceiling_ms = " + p(7, "bigint") + ", next_floor_ms = " + p(8, "bigint") +
		" where namespace = " + p(9, "varchar") + " and slot = " + p(10, "integer") + " and fence = " + p(11, "bigint") +
		" and coalesce(incarnation, '') = " + p(12, "varchar") + " and expires_at = " + p(13, "bigint") +
		" and ceiling_ms = " + p(14, "bigint") + " and next_floor_ms = " + p(15, "bigint")
	candidates, args := candidatesSQL(t, now, from, f)
	return LeaseSQL{
		CountHeld: "select count(*) from " + t.Slot + " where namespace = " + p(1, "varchar") +
			" and owner_key is not null and expires_at > " + now,
		Candidates:     candidates,
		CandidatesArgs: args,
		Slot: "select " + slotColumns + from + " join " + t.Slot + " s on s.namespace = n.namespace" +
			" where n.namespace = " + p(1, "varchar") + " and s.slot = " + p(2, "integer"),
		Take:   set + " and (owner_key is null or expires_at <= " + now + ")",
		Update: set,
	}
}

// candidatesSQL returns Candidates, which reads the clock c and the namespace n from
// from, and for positional placeholders its arguments. It is the union of three
// parts, each an index lookup that stops at candidateRows rows whatever the size of
// the namespace: the free slots whose last_owner_key is the owner key (the index on
// namespace, last_owner_key, slot), the preferred slot if it is free and not among
// them (the primary key), and the lowest free slots among neither (a walk of the
// primary key). The order of the parts and of the slots in them is the order of the
// candidates.
func candidatesSQL(t Tables, now, from string, f leaseFlavour) (string, []CandidateArg) {
	var order []CandidateArg
	arg := func(a CandidateArg) string { // called in the order the placeholders appear
		order = append(order, a)
		switch a {
		case CandidateNamespace:
			return f.param(1, "varchar")
		case CandidateOwnerKey:
			return f.param(2, "varchar")
		}
		return f.param(3, "integer")
	}
	clock := now
	if f.lateral {
		clock = "c.now_ms"
	}
	// part selects the free slots of the namespace that cond (called in its place)
	// picks; bounded ones are the candidateRows lowest of them.
	part := func(tier string, cond func() string, bounded bool) string {
		top, orderBy := "", ""
		if bounded {
			top, orderBy = f.top, " order by s.slot"+f.limit
		}
		sel := "select " + top + tier + " as tier, s.slot, s.owner_key, s.incarnation, s.last_owner_key, s.fence, s.expires_at," +
			" s.floor_ms, s.ceiling_ms, s.next_floor_ms from " + t.Slot + " s where s.namespace = " + arg(CandidateNamespace) +
			cond() + " and (s.owner_key is null or s.expires_at <= " + clock + ")" + orderBy
		if !bounded {
			return sel
		}
		// A derived table, because SQLite bounds no part of a union, MySQL and
		// MariaDB none without parentheses, which SQLite refuses, and SQL Server
		// orders none.
		return "select * from (" + sel + ") p" + tier
	}
	notOwner := func() string {
		return " and (s.last_owner_key is null or s.last_owner_key <> " + arg(CandidateOwnerKey) + ")"
	}
	owned := part("0", func() string { return " and s.last_owner_key = " + arg(CandidateOwnerKey) }, true)
	preferred := part("1", func() string { return " and s.slot = " + arg(CandidatePreferred) + notOwner() }, false)
	lowest := part("2", func() string { return " and s.slot <> " + arg(CandidatePreferred) + notOwner() }, true)
	q := "select " + f.top + slotColumns + from + f.join(owned+" union all "+preferred+" union all "+lowest) +
		" where n.namespace = " + arg(CandidateNamespace) + " order by s.tier, s.slot" + f.limit
	if !f.positional {
		order = nil
	}
	return q, order
}

// limitClause is the " limit n" that bounds a statement to candidateRows rows where the
// dialect has limit.
var limitClause = " limit " + strconv.Itoa(candidateRows)
