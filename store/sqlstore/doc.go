// Package sqlstore is a store.RangeStore and a store.SlotLeaseStore on database/sql,
// for PostgreSQL, MySQL, MariaDB, SQL Server and SQLite, the store that most
// deployments run.
//
// New wraps a *sql.DB that the application owns; Open opens and owns one. Both detect
// the dialect from the server's own version query, check the tables and, with
// WithInitSchema, create them, all within the store's timeout, so that bad settings
// fail at start-up and never at the first reservation.
//
// # Drivers
//
// The package imports no driver: a program links the ones it imports, as with
// database/sql itself. Import the driver of your database:
//
//	import _ "github.com/jackc/pgx/v5/stdlib"  // "pgx": PostgreSQL
//	import _ "github.com/go-sql-driver/mysql"  // "mysql": MySQL and MariaDB
//	import _ "github.com/microsoft/go-mssqldb" // "sqlserver": SQL Server
//	import _ "modernc.org/sqlite"              // "sqlite": SQLite, pure Go
//
// Driver errors are told apart without importing the drivers, through the methods
// they have: SQLState() (pgx), SQLErrorNumber() (go-mssqldb), Code()
// (modernc.org/sqlite), and for go-sql-driver/mysql, whose error type has none, the
// number at the start of its text ("Error 1062 (23000): …").
//
// # Reservations
//
// A reservation is one statement and one round trip, which returns the key's new
// next value; the range is [next − size, next):
//
//	postgresql       insert … on conflict … do update … returning
//	mysql, mariadb   insert … on duplicate key update next_value = last_insert_id(next_value + ?),
//	                 read from the statement's own result; both branches set last_insert_id
//	sqlserver        merge … with (holdlock) … output
//	sqlite           insert … on conflict … do update … returning
//
// A sealed key, or one that size would take past math.MaxInt64, changes no row: the
// statement checks both, and the store then reads the row to say which
// (store.ErrSealed, store.ErrExhausted). A value the statement cannot have written
// fails the reservation with ErrLostValue instead of handing out a range: behind an
// SQL proxy that rewrites or loses last_insert_id, or splits reads from writes, set
// FetchTransaction, which updates and reads the row in one transaction.
//
// # Slot leases
//
// The slots that give snowflake generators their machine ids live in the slot table,
// one row per slot that was taken (or a few more), and each namespace's limit and
// tolerance in the namespace table.
// The store clock is the database's, in UTC epoch milliseconds whatever the session's
// time zone: clock_timestamp() on PostgreSQL, utc_timestamp(6) on MySQL and MariaDB,
// sysutcdatetime() on SQL Server, SQLite's 'now'. Expiry is judged by it alone (L6).
//
//	first use     one transaction records the namespace's limit and tolerance and
//	              creates the rows of its first slots, [0, 16) (storekit.SlotsToProvision)
//	more rows     when every row is leased, the rows of the lowest twice-as-many-as-held
//	              slots, one statement; a preferred slot's row alone: a namespace of
//	              2^20 slots has rows for about the slots taken, never 2^20
//	Acquire       one read, taking no lock, of the store clock and of the free slots:
//	              those the owner key had before, the preferred one, the lowest;
//	              then one compare-and-set per candidate until one holds
//	Renew         a read of the lease's row with the store clock, then a compare-and-set
//	Release       a read of the lease's row, then a compare-and-set
//
// The store computes each new row in Go from the row it read, with the clock of that
// read, and writes it with an auto-commit update that changes the row only if it is
// still as read (and, to take it, still free by the database's clock at that moment):
// zero rows changed means another instance came first, and the store moves on to the
// next candidate or reads again. A new owner takes two round trips.
//
// The read of Acquire costs what it returns, not the size of the namespace: it is a
// union of three lookups that each stop after 16 rows, the free slots the owner key
// had before (in the slot table's index on namespace, last_owner_key, slot), the
// preferred slot and the lowest free slots (both in the primary key). Measured on
// PostgreSQL 15, MariaDB 10.11 and SQLite, an Acquire and a Release take 1 to 3 ms
// on a namespace of 2^20 slots, about as long as on a namespace of one slot. The
// walk for the lowest free slots passes the held slots below them, so a namespace
// whose low slots are nearly all held reads those rows. The first use of a
// namespace creates every row: 2 s (SQLite), 7 s (PostgreSQL) and 25 s (MariaDB) for
// 2^20 slots, about four times that for store.MaxSlots; a store serving one needs a
// timeout to match. Tables created without the index (by CosId 5.0.0-alpha.1's
// script) still serve, but read the owner key's slots from all the namespace's
// rows: initSchema creates the index, or create it as Schema's script does.
//
// The tables, by default cosid_range, cosid_slot and cosid_namespace, are created by
// the script of Schema, one per dialect, which a DBA can run instead of initSchema.
// On tables that an older script created, initSchema also adds the columns they lack
// (alter table … add column) and the slot table's index; without it, New fails
// naming the missing columns, with the statements that add them.
//
// # Timeouts
//
// Every call is bounded by the store's timeout, a context deadline. On PostgreSQL a
// statement whose caller gave up ends on the server with it. MySQL and MariaDB run a
// statement that waits on a lock on without its caller, and commit it once the lock
// is free: Open therefore sets the sessions' innodb_lock_wait_timeout and
// lock_wait_timeout to the timeout rounded up to a whole second, so that such a
// statement ends on the server within that time; a Reserve or a Seal that failed on
// a lock held longer never takes effect. A pool given to New needs the same DSN
// parameters; New warns when they are missing.
//
// A transaction (FetchTransaction, the first use of a namespace) whose caller
// cancels is answered at once, unless its commit has begun, and rolls back behind
// the caller on a connection that stays open: a connection closed under a
// transaction leaves the server holding its row locks until the server notices,
// which holds up every other reservation of the key.
//
// # Replication
//
// A commit that the primary acknowledged and a replica never received is lost
// when that replica is promoted, and the store then hands the same ids out again
// (docs/replication.md has the measurements). The store refuses such a database at
// open and on every new connection of a pool that Open made (database/sql
// reconnects silently, after a failover too), with ErrUnsafeReplication naming
// the risk and the setting that fixes it:
//
//   - PostgreSQL: a standby (pg_is_in_recovery()); a primary whose streaming
//     standbys (in pg_stat_replication) include no synchronous one. A session whose
//     synchronous_commit is off, local or remote_write is set to on (on a pool
//     given to New, which the store cannot change, it is refused). A role without
//     pg_monitor sees the standbys but not their sync_state: the store then relies
//     on synchronous_standby_names.
//   - MySQL and MariaDB: a read-only server; innodb_flush_log_at_trx_commit other
//     than 1; a binary log with sync_binlog other than 1; Galera (wsrep_on); replicas
//     (SHOW SLAVE HOSTS, SHOW REPLICAS, Rpl_semi_sync_master_clients) without
//     semi-sync, with semi-sync switched off, or with a semi-sync timeout shorter
//     than 60 s (or the store's timeout, if longer), past which the primary goes on
//     alone.
//   - SQLite and SQL Server: nothing is checked (SQL Server's Always On
//     availability groups are not: use synchronous commit mode).
//
// WithAllowAsyncReplicas (options: { allowAsyncReplicas: true }) accepts the risk
// and is logged as a warning at every start; a standby or read-only server is
// refused even so. A pool given to New is checked once, at New.
//
// # SQLite
//
// SQLite has one writer. A store lets one of its calls at a time reach the
// database, and Open gives it one connection, a busy timeout equal to the store's
// timeout (other processes on the file wait for each other's writes) and WAL mode,
// with the log's file cut back to 4 MiB after a checkpoint (journal_size_limit).
// Every statement runs to its end, so that SQLite's automatic checkpoint folds the
// log into the database file every 1,000 pages while the store serves. A file or
// folder that the process cannot write is a setup error (store.ErrNotSetUp, not
// store.ErrUnavailable) naming its absolute path and the permission.
//
// # SQL Server
//
// The sqlserver dialect is untested against a live server here: it is tested for its
// SQL text only, which golden tests fix, and for the types of the arguments it
// sends, which a driver that records them checks against the conversions SQL Server
// allows from what go-mssqldb sends. The other dialects pass the store test kits, of ranges and of
// slot leases, on real servers (PostgreSQL 15, MariaDB 10.11, SQLite).
//
// # Other databases
//
// Another database, or different SQL for a supported one, is a Dialect given to
// Register. Registered dialects are tried before the built-in ones and can be named
// with WithDialect; a dialect must pass storetest.RunRangeStore and
// storetest.RunSlotLeaseStore on its database.
package sqlstore
