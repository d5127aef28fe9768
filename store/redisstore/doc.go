// Package redisstore is a store.RangeStore and a store.SlotLeaseStore on Redis
// (go-redis v9): standalone, Sentinel, Cluster and Ring clients. It needs Redis 5 or
// later, whose scripts may write after reading TIME; its tests run on Redis 7.0.
//
// Every operation is one Lua script, loaded once and run with EVALSHA (EVAL when the
// server answers NOSCRIPT), so each reserve, acquire, renew and release is one round
// trip and atomic; Seal is one HSET. The store clock of leases is Redis TIME, read
// inside the scripts, so expiry never depends on a client's clock (L6).
//
// # Durability
//
// A Redis that can lose acknowledged writes forgets reservations and leases when it
// restarts, and then hands the same ranges and slots out again. New reads the
// persistence settings with CONFIG GET (on every master of a Cluster, every shard of
// a Ring) and refuses a server without appendonly yes and appendfsync always
// (ErrVolatileServer), or one whose CONFIG it may not run (ErrDurabilityUnknown),
// unless WithVolatileServer (in a configuration, options: { allowVolatile: true })
// accepts the risk, which New then logs as a warning.
//
// Replication is asynchronous: a replica promoted by Sentinel or Cluster failover
// may lack the last writes its master acknowledged, and hands those ids out again.
// WithReplicas (options: { replicas: n, replicaTimeout: 500ms }) makes every
// operation send WAIT (WAITAOF on Redis 7.2 and later) after its script, in the same
// round trip, and fail with ErrNotReplicated unless that many replicas confirm the
// write in time. New, every new connection of the client (go-redis's OnConnect) and
// a write once a minute read INFO replication and refuse a master with more
// connected replicas than the writes wait for (ErrAsyncReplicas), since a failover
// may promote one that did not confirm; New also refuses to wait for more replicas
// than the master has (ErrTooFewReplicas). WithAsyncReplicas (allowAsyncReplicas)
// accepts the risk, with a warning.
//
// # Keys
//
// Every key name starts with the prefix (WithPrefix, default "cosid:") and holds the
// range key or namespace as a Cluster hash tag, "{…}" with "%" and "}" escaped as %25
// and %7D, so that all the keys of one script lie in one hash slot:
//
//	cosid:{order}:range       hash  next (the start of the next range), sealed
//	cosid:{machines}:meta     hash  limit, tolerance (ms), set at the namespace's first use
//	cosid:{machines}:slots    hash  "<slot>.owner", ".incarnation", ".last", ".fence",
//	                                ".expires", ".floor", ".ceiling", ".nextFloor": each slot's row
//	cosid:{machines}:owners   hash  owner key → the slot it took last (L5)
//	cosid:{machines}:held     zset  the leased slots, scored by expiry (ms)
//	cosid:{machines}:busy     bitmap  bit n set while slot n is in held
//	cosid:keys                zset    every range key, scored 0: the byte-ordered index of Admin.Keys
//
// The slot rows follow the same rules as the other stores (storekit.SlotRow), which
// the scripts repeat in Lua and a test checks against the Go. held and busy are an
// index over the rows: an Acquire frees the slots whose leases expired by the store
// clock, then takes the owner key's earlier slot, the preferred one, or the lowest
// free one (BITPOS), each only if its row is free by the store clock at that moment.
// Memory grows with the slots used (the bitmap with the highest), never with the
// limit.
//
// Range values never pass through Lua's numbers, which are doubles: HINCRBY adds in
// 64-bit integers and refuses to pass math.MaxInt64 (store.ErrExhausted), and the
// script reads the result back as text. Lease numbers (epoch milliseconds, fences)
// stay far below 2^53.
//
// CosId 4.x keeps other keys, which this store neither reads nor writes: a segment is
// the string cosid:{<namespace>.<name>}.adder, the last id handed out (INCRBY by the
// step), and a machine id lives in the hashes cosid:{<namespace>}:itc_idx (instance →
// "machineId|lastStamp") and cosid:{<namespace>}:revert beside the counter
// cosid:{<namespace>}:adder. The 4.x adder holds the last id given out, where the
// range hash here holds the next one, and 4.x machine ids carry no fence, floor or
// ceiling.
//
// # Timeouts and retries
//
// Every call is bounded by the store's timeout (WithTimeout); the client must honour
// context deadlines (go-redis: ContextTimeoutEnabled, set by a configured store) for
// the bound to cut a call that waits on the network. A client that retries after a
// lost connection may run a script twice: a reservation then leaves a gap, never a
// duplicate; an acquisition that ran finds its own lease and answers it again; a
// release that ran reports store.ErrLeaseLost to the second call, the slot free.
package redisstore
