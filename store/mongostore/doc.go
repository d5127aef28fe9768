// Package mongostore is a store.RangeStore and a store.SlotLeaseStore on a MongoDB
// database (go.mongodb.org/mongo-driver/v2), as CosId 4.x's MongoDB backend.
//
// New wraps a *mongo.Database whose client the application owns; the configuration
// type "mongodb" connects a client of its own (see the registration in this
// package's init).
//
// # Collections
//
//	cosid_range   {_id: key, next, sealed}: a range key and its next value
//	cosid_slot    {_id: "{namespace}#meta", ns, limit, toleranceMs}: a namespace's
//	              settings, fixed at its first use
//	              {_id: "{namespace}#{slot}", ns, slot, owner, incarnation, lastOwner,
//	              fence, expiresMs, floorMs, ceilingMs, nextFloorMs, v}: a slot's row,
//	              by the rules of storekit.SlotRow, with the version v of its compare-and-set
//
// Neither suffix holds '#', so the last '#' of an _id splits it, whatever '#' a
// namespace holds; reads also match the ns field. The store needs no index beyond
// _id; only Admin.Delete, for offline tools, deletes a document.
//
// # Admin
//
// The Store is a store.Admin. Keys is one find per page of a range of _id, sorted on
// _id (the byte order of UTF-8, as MongoDB compares strings without a collation) and
// limited to the page in a single batch, so a listing walks the _id index a page at
// a time. RaiseTo is one findOneAndUpdate with upsert and $max of next, atomic on
// MongoDB like a reservation. RaiseFloor writes the slot's row with the same
// compare-and-set on its version as Acquire; for a slot never taken it inserts a row
// of fence 0 that holds only nextFloorMs, so its first owner still takes fence 1.
// Slots and LeaseOf read hello and the namespace's documents at once.
//
// # Reservations
//
// A reservation of an existing key is one findOneAndUpdate: $inc of next by the
// size, filtered on the key not being sealed and on next being at most
// math.MaxInt64 minus the size, returning the document after the update; the range
// is [next-size, next). When nothing matches, a read of the key tells why: sealed
// (store.ErrSealed), exhausted (store.ErrExhausted), or absent, when the store
// inserts {_id: key, next: initialOffset+size}; a duplicate key error means another
// process inserted it first, and the reservation starts over. So a new key costs
// three round trips, once, and every later reservation one. (An upsert cannot make
// a new key start at initialOffset without an update pipeline.) Seal is one update
// with upsert: $set sealed, and next 0 when it inserts.
//
// # Write concern
//
// Every write of the store asks for write concern majority, whatever the database's
// or the client's own: with w: 1 a failover can roll back a reservation the primary
// acknowledged, and the next primary hands the same values out again, for the
// reason the Redis store refuses a server that can lose writes. WithWeakWriteConcern
// (options: { weakWriteConcern: true } in a configuration, whose URI's w= is
// refused otherwise) is the explicit opt-in for a single server or a test; w: 0 is
// refused even so.
//
// # Slot leases and the store clock
//
// The store clock is the server's: the localTime of its reply to hello, which the
// driver sends to the primary like the writes (L6). Every Acquire and Renew asks
// hello at the same time as it reads the documents it needs, and judges a row
// expired when its expiry is at or below that time; the reply comes before the
// compare-and-set that takes the slot, so a row expired by it is expired when the
// write lands. No client clock decides anything; the lease's times are the
// primary's milliseconds. ($$NOW would give the same time inside an aggregation,
// but an update pipeline cannot carry the storekit.SlotRow rules, and FerretDB, the test
// server, has neither.) An Acquire that ends without knowing whether its write
// landed may leave its slot held by an incarnation nobody knows until the TTL
// passes, and its owner gets another slot meanwhile.
//
//	Acquire   hello and a find of the namespace's documents at once, the settings
//	          inserted at first use, then a replaceOne of the first free slot's row
//	          filtered on its _id and version (an insert for a slot never taken)
//	Renew     hello and a find of the settings and the row at once; a replaceOne
//	          filtered on the version
//	Release   a find of the settings and the row; a replaceOne filtered on the
//	          version
//
// # Test server
//
// The tests run on FerretDB v1.24.2 on SQLite, as no MongoDB is packaged where they
// run. FerretDB answers every command the store sends, but runs an update as a query
// followed by a write that checks the filter no more, so two concurrent updates of
// one document can both succeed: there, and only there, the tests make the stores of
// one test take turns, and skip the test of two processes. On MongoDB each update's
// filter and change apply to a document atomically, which the store relies on.
package mongostore
