package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"sync"
)

// Dialect is the SQL of one kind of database: how to recognise it, its schema, its
// clock, and the statements of reservations and slot leases. The built-in dialects
// are postgresql, mysql, mariadb, sqlserver and sqlite; another database, or
// different SQL for one of them, is a Dialect passed to Register.
//
// A dialect must pass the store test kit (storetest.RunRangeStore and
// storetest.RunSlotLeaseStore) on its database.
type Dialect interface {
	// Name is the name the dialect option uses, such as "postgresql".
	Name() string
	// Detect reports whether the server that q reaches speaks this dialect, judged by
	// the server's own answer to a version query (select version(), @@version, …),
	// not by the driver. A probe that fails means no.
	Detect(ctx context.Context, q Querier) bool
	// QuoteIdent quotes one identifier, such as a table or a schema. The store has
	// checked it: it is ASCII letters, digits and underscores.
	QuoteIdent(ident string) string
	// Schema returns the statements that create the tables of t that do not exist
	// yet, each without a trailing semicolon. The names in t are quoted.
	Schema(t Tables) []string
	// Ranges returns the range statements of the dialect on the tables of t, whose
	// names are quoted.
	Ranges(t Tables) Ranges
	// NowMillis returns the store clock as an SQL expression: the database's own
	// time in whole milliseconds since the Unix epoch, UTC whatever the session's
	// time zone, as a bigint. Lease expiry is judged by it alone (L6).
	NowMillis() string
	// Leases returns the slot-lease statements of the dialect on the tables of t,
	// whose names are quoted, reading the store clock with the SQL expression now
	// (the store passes NowMillis).
	Leases(t Tables, now string) LeaseSQL
	// Retryable reports whether err ended a transaction in a way that running it
	// again may cure: a duplicate key from a concurrent insert, a deadlock, a
	// serialization failure.
	Retryable(err error) bool
}

// Ranges runs a dialect's statements on the range table. Every method is one
// statement, one round trip; the store adds argument checks, timeouts, transactions
// and the reading of what a refused reservation ran into.
type Ranges interface {
	// Reserve adds size to key's next value in one statement and returns the new
	// value; a key that does not exist is created with the value created. ok is false
	// when no row changed, because the key is sealed or adding size would pass
	// math.MaxInt64. The store calls it only with created ≤ math.MaxInt64.
	Reserve(ctx context.Context, q Querier, key string, size, created int64) (next int64, ok bool, err error)
	// Advance adds size to the next value of an existing key that is not sealed,
	// when the sum stays ≤ math.MaxInt64, and reports whether it did. It reads
	// nothing back: the store reads the row in the same transaction.
	Advance(ctx context.Context, q Querier, key string, size int64) (bool, error)
	// Read returns key's row; found is false when the key does not exist.
	Read(ctx context.Context, q Querier, key string) (next int64, sealed, found bool, err error)
	// Insert creates key with the value next. It fails, with an error that Retryable
	// accepts, when the key exists.
	Insert(ctx context.Context, q Querier, key string, next int64) error
	// Seal marks key sealed, creating it sealed (with value 0) when it does not exist.
	Seal(ctx context.Context, q Querier, key string) error
}

// GiveBackRanges is implemented by a dialect's Ranges that take back the unused tail
// of a range (store.GiveBacker, S7). Every built-in dialect's does; a Store on a
// dialect whose Ranges does not fails its GiveBack with errors.ErrUnsupported.
type GiveBackRanges interface {
	// GiveBack sets key's next value to start in one statement, only when it is end
	// and the key is not sealed, and reports whether it changed the row. The store
	// calls it only with 0 ≤ start < end.
	GiveBack(ctx context.Context, q Querier, key string, start, end int64) (bool, error)
}

// Querier runs statements: a *sql.DB, *sql.Conn or *sql.Tx. The store passes one
// that caches prepared statements, so that a statement with arguments is one round
// trip with every driver.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var (
	dialectsMu sync.RWMutex
	registered []Dialect
)

// builtins are tried in this order: MariaDB before MySQL, because MariaDB answers the
// MySQL probe too.
var builtins = []Dialect{postgresDialect{}, mysqlDialect{mariadb: true}, mysqlDialect{}, sqlserverDialect{}, sqliteDialect{}}

// Register makes d available by name to the dialect option, and to detection before
// the built-in dialects, in the order of registration. A registered dialect may take
// a built-in's name, and then replaces it. Register panics if d is nil, its name is
// empty, or a dialect of that name is already registered.
func Register(d Dialect) {
	if d == nil || d.Name() == "" {
		panic("sqlstore: Register needs a dialect with a name")
	}
	dialectsMu.Lock()
	defer dialectsMu.Unlock()
	if slices.ContainsFunc(registered, func(r Dialect) bool { return r.Name() == d.Name() }) {
		panic("sqlstore: Register called twice for dialect " + d.Name())
	}
	registered = append(registered, d)
}

// Dialects returns the names the dialect option accepts: the registered dialects, then
// the built-in ones.
func Dialects() []string {
	var names []string
	for _, d := range candidates() {
		if !slices.Contains(names, d.Name()) {
			names = append(names, d.Name())
		}
	}
	return names
}

// candidates returns the dialects in the order detection tries them.
func candidates() []Dialect {
	dialectsMu.RLock()
	defer dialectsMu.RUnlock()
	return append(slices.Clone(registered), builtins...)
}

// LookupDialect returns the dialect that the dialect option name selects: the
// registered one of that name, or else the built-in one. A Dialect that changes some
// of a built-in dialect's SQL embeds what LookupDialect returns, and a test reads a
// dialect's statements from it (Ranges, Leases) to run them bare beside the store.
func LookupDialect(name string) (Dialect, bool) { return lookupDialect(name) }

func lookupDialect(name string) (Dialect, bool) {
	for _, d := range candidates() {
		if d.Name() == name {
			return d, true
		}
	}
	return nil, false
}

// versionProbe runs a version query and returns its first column, or ok false when the
// server does not understand it.
func versionProbe(ctx context.Context, q Querier, query string) (string, bool) {
	var v sql.NullString
	if err := q.QueryRowContext(ctx, query).Scan(&v); err != nil || !v.Valid {
		return "", false
	}
	return v.String, true
}
