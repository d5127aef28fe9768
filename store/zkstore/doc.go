// Package zkstore is a store.RangeStore and a store.SlotLeaseStore on a ZooKeeper
// ensemble (github.com/go-zookeeper/zk), for platforms that already run one, as
// CosId 4.x's ZooKeeper backend does.
//
// New wraps a *zk.Conn that the application owns; the configuration type
// "zookeeper" opens a connection of its own (see the registration in this package's
// init). Every znode lies under a root, DefaultRoot unless WithRoot sets another,
// so that tenants and tests share an ensemble.
//
// # Znodes
//
//	{root}/ranges/{key}            a range key: {"next":N} or {"next":N,"sealed":true}
//	{root}/slots/{namespace}       a namespace: its limit and tolerance (JSON)
//	{root}/slots/{namespace}/{n}   slot n's row (JSON): owner, incarnation, fence,
//	                               expiry, floor, ceiling, by the rules of storekit.SlotRow
//	{root}/clock                   written (empty) to read the store clock
//
// Keys and namespaces are escaped into one path element each: letters, digits, '-'
// and '_' stay, every other byte becomes %XX, so "orders/2026" is the znode
// orders%2F2026 and no name can reach another's znode. Every znode is persistent;
// the store never deletes one, and none is ephemeral, so a lost session loses
// nothing.
//
// # Reservations
//
// A reservation is one versioned Set of the key's znode (a Create for a new key),
// a compare-and-swap on the znode's version. The store remembers each key's value
// and version from its last answer, so a key that only this process writes costs
// one round trip per reservation, like a bare Set; a write by another process makes
// the next Set miss, and the store reads the znode and tries again. Reservations of
// one key in one process take turns instead of racing each other's Sets. Misses
// against other processes are retried at once, then with jittered backoff from the
// second miss in a row, up to 64 writes (ErrContention) within the store's timeout.
//
// The ZooKeeper client takes no context: a call that the timeout or the caller's
// context ends returns at once, and its request may still reach the server. Every
// write is a compare-and-swap, so such a late write is at most a range nobody uses
// (a gap, never a duplicate) or a lease that expires unused: an Acquire that ends
// without knowing whether its write landed may leave its slot held by an
// incarnation nobody knows until the TTL passes, and its owner gets another slot
// meanwhile.
//
// # Slot leases and the store clock
//
// ZooKeeper has no call that returns its time, but every write carries one: the
// mtime of a znode is the leader's clock when it ordered the write. The store reads
// its clock by writing the znode {root}/clock and taking the mtime of that write
// (L6): every Acquire and Renew does so, at the same time as it reads the rows, and
// judges a row expired when its expiry is at or below that time. The write lies
// before the compare-and-swap that takes the slot, so a row expired by it is expired
// when the swap lands. No client clock decides anything; the lease's times
// (StoreNow, ExpiresAt, Floor, Ceiling) are the leader's milliseconds. After a
// leader change the new leader's clock rules; a leader whose clock steps back makes
// leases last longer, never shorter, and the ceilings, which never go down, keep
// Snowflake ids apart (L3).
//
//	Acquire   a write of the clock znode, a read of the namespace znode and its
//	          children, a read of each slot znode (8 at a time), then a versioned
//	          Set (or Create) of the first free slot's znode
//	Renew     a write of the clock znode and reads of the namespace and the row,
//	          at once; a versioned Set of the row
//	Release   reads of the namespace and the row; a versioned Set of the row
//
// Rows are made when their slot is first taken, so a namespace of store.MaxSlots
// costs nothing up front; an Acquire reads every row the namespace has.
package zkstore
