// Package storekit is the kit for writing a CosId store: the rules that every
// implementation of store.RangeStore, store.SlotLeaseStore and store.Admin must keep
// alike, as functions a store calls instead of working them out again. It is to
// package store what database/sql/driver is to database/sql.
//
// Most code should not import it: generators, services and tools use package store
// (its interfaces, sentinel errors and registry) and the generators built on it
// (segment, snowflake, the root package). storekit is for the writer of a store,
// in this repository or outside it; it imports only store and the standard
// library.
//
// # What each helper keeps
//
// The invariants are named as store.RangeStore (S1–S6) and store.SlotLeaseStore
// (L1–L7) name them.
//
// Arguments, checked before a store touches its backend, each refusal wrapping
// store.ErrInvalidArgument and naming the argument:
//
//	CheckReserve             Reserve; store.CheckKey for Seal and Delete
//	store.CheckLeaseRequest  Acquire (kept in store: generators check it too)
//	CheckRenew, CheckLease   Renew, Release
//	CheckKeys, CheckRaise    Admin's Keys, RaiseTo
//	CheckNamespace           Admin's Slots
//	CheckLeaseOf             Admin's LeaseOf (CheckNamespace and CheckOwnerKey)
//	CheckFloorRequest        Admin's RaiseFloor
//
// Ranges, for a store that works out the next range in Go:
//
//	NextRange      S2 a new key starts at its initial offset; S6 a sealed key refuses;
//	               S5 no range passes math.MaxInt64
//	Fits           S5 whether size more values fit, without wrapping around
//	ExhaustedAfter S5 the refusal, worded alike by every store
//	PrefixBounds   the [lo, hi) of an ordered scan for Admin.Keys within a prefix
//
// Slot rows, the state of one slot of a namespace (SlotRow) and the rules by which
// an acquisition, a renewal and a release change it, so that every store hands out
// the same fences, floors and ceilings:
//
//	SlotRow.Take        L2 the next fence and a fresh incarnation (NewIncarnation);
//	                    L3 a Floor above every stamp an earlier owner could still use
//	SlotRow.Renew       the Ceiling moves up with the expiry, never down (L6: store clock)
//	SlotRow.Release     L3 the next owner starts above the last stamp; a stamp above
//	                    the Ceiling is refused
//	SlotRow.ReleaseUnproven  L3 a release by someone who cannot prove ownership
//	                    counts the Ceiling as the last stamp
//	SlotRow.Holds       L2 whether a renew or release names the row's current lease
//	SlotRow.Free        L1 whether the slot may be taken at the store's now
//	SlotCandidates      L5 the owner's earlier slot first, then the preferred, then
//	                    the lowest free ones
//	SlotsToProvision    how many slot records a store that provisions them ahead
//	                    makes: as they are taken, never one per slot of a namespace
//	NamespaceConflict   L4 the refusal of a namespace asked for with other settings
//	MillisUp            TTLs and tolerances in whole milliseconds, rounded up
//	RenewLease, ReleaseLease  Renew and Release of a store that writes rows with a
//	                    compare-and-swap (SlotChange), checks included
//	NewNamespaceInfo, ListedSlots, OwnedSlot, SlotRow.Info, SlotRow.Lease
//	                    the answers of Admin's Slots and LeaseOf, and of a lease
//
// Calls, for a store that talks to a server:
//
//	BoundCall, DoCall   every call bounded by the store's timeout (store.Timeouter)
//	CallErr             an error that ended with its context wraps ctx.Err(), so that
//	                    callers find context.DeadlineExceeded whatever the client said
//	KeyTurns, Backoff   the writes of one key in one process queue instead of
//	                    making each other's compare-and-swaps miss, and the misses
//	                    that other processes cause back off with jitter
//
// JSON, for a store that keeps its rows as JSON or takes requests in it:
//
//	DecodeStrict        a row the store wrote itself, refusing what it would not
//	                    have written: a corrupt row hands out no id
//	DecodeExact         a request, refusing besides keys in another case and keys
//	                    given twice
//
// Configuration, for a store that configuration files open by their type:
//
//	Opener              the store.Type of Register: the settings decoded the one
//	                    way, a parse of them that Check and Open share (no I/O: a
//	                    configuration loads while its stores are down), and a dial,
//	                    which only Open runs, within the entry's timeout, its errors
//	                    naming the entry
//
// # Writing a store
//
// A new store implements store.RangeStore, and store.SlotLeaseStore and store.Admin
// when its backend can keep leases and list keys, calling these helpers where its
// backend leaves the rule to it (a store whose backend does the arithmetic, such as
// a Lua script, keeps the same rules there and tests them against SlotRow). It then
// proves the contract with the kits of package store/storetest, from its own test:
//
//	func TestContract(t *testing.T) {
//		storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return open(t) })
//		storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore { return open(t) })
//		storetest.RunAdmin(t, func(t *testing.T) store.Admin { return open(t) })
//	}
//
// where every store open returns within one test shares one backend, as two
// processes would. After its Close, every call of a store fails with an error
// wrapping store.ErrClosed (the kits check it).
//
// A store type becomes available to configuration files through store.Register,
// from the package's init, with the Type that Opener makes of two functions: a
// parse of the decoded settings, without I/O, and a dial:
//
//	func init() { store.Register("etcd", storekit.Opener(parseSpec, dialSpec)) }
//
// Every store package of the CosId repository has the same files for the same
// roles, so that a store copied from any of them has the shape of all: doc.go,
// register.go (the init, the settings, parseSpec and dialSpec), options.go (Option,
// every With… and its default), <x>store.go (the Store, New and Close), and as it
// has them reserve.go, lease.go, admin.go and ping.go. examples/extstore is such a
// store, written against public packages only.
package storekit
