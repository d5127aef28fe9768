package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var (
	// ErrLostValue means the database did not report the value a reservation wrote,
	// or reported one it cannot have written (below the size): the reservation
	// failed rather than hand out a range it cannot vouch for. Behind an SQL proxy
	// that rewrites or loses last_insert_id, or that splits reads from writes, use
	// FetchTransaction.
	ErrLostValue = errors.New("the database reported no value for the reservation; behind an SQL proxy, use fetchPlan transaction")
)

// Store is a store.RangeStore and a store.SlotLeaseStore on a database/sql database.
// It is safe for concurrent use, also by many processes sharing one database.
type Store struct {
	db       *sql.DB
	owned    bool // Close closes db
	q        *stmtCache
	dialect  Dialect
	ranges   Ranges
	leases   LeaseSQL
	plan     FetchPlan
	timeout  time.Duration
	name     string // "sqlstore(postgresql, cosid_range)", for errors of reservations
	slotName string // "sqlstore(postgresql, cosid_slot)", for errors of leases
	// tables and clock serve the tests that move the store clock: the lease
	// statements of the clock's offset, when it is not zero, are built on demand.
	tables Tables // quoted
	clock  *ClockOffset
	moved  atomic.Pointer[movedLeases]
	// writer, when set, lets one call at a time reach a database with one writer
	// (SQLite) whose pool the application owns.
	writer chan struct{}
	closed atomic.Bool
	// adminStmts are the statements of store.Admin, made at its first call.
	adminStmts atomic.Pointer[AdminSQL]
}

var (
	_ store.RangeStore     = (*Store)(nil)
	_ store.SlotLeaseStore = (*Store)(nil)
	_ store.Timeouter      = (*Store)(nil)
)

// New returns a Store on db, which the application owns: Close leaves it open. Every
// call is bounded by timeout, a context deadline that, unlike JDBC's whole-second
// query timeout, needs no rounding: Timeout reports it as given. New detects the dialect (unless WithDialect names
// it), checks the tables and, with WithInitSchema, creates the missing ones, all
// within timeout; it reports every bad input there rather than at the first Reserve.
//
// With MySQL or MariaDB, give db's DSN innodb_lock_wait_timeout and
// lock_wait_timeout of at most timeout (in whole seconds) as Open does: the driver's
// cancellation only closes the connection, and the server runs a statement that
// waits on a lock to its end when the lock is free, up to those waits (50 s by
// default) after its caller was told it failed. New logs a warning when a session
// waits longer.
//
// With SQLite, give db a busy timeout (modernc.org/sqlite: the DSN parameter
// _pragma=busy_timeout(5000)) so that processes sharing the file wait for each
// other's writes instead of failing.
func New(db *sql.DB, timeout time.Duration, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("sqlstore: %w: nil *sql.DB", store.ErrInvalidArgument)
	}
	if err := checkTimeout(timeout); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return newStore(ctx, db, false, timeout, buildConfig(opts))
}

// Open opens the database dsn with the database/sql driver of that name and returns a
// Store that owns it: Close closes it. The driver must be registered, by a blank
// import in the program (the error says which):
//
//	pgx        github.com/jackc/pgx/v5/stdlib    postgres://user@host:5432/db
//	mysql      github.com/go-sql-driver/mysql    user@tcp(host:3306)/db (MySQL and MariaDB)
//	sqlserver  github.com/microsoft/go-mssqldb   sqlserver://user@host?database=db
//	sqlite     modernc.org/sqlite                a file path, such as cosid.db
//
// Open keeps a pool of 16 connections, all kept idle between reservations; a SQLite
// database gets one connection, a busy timeout of timeout and WAL mode; a MySQL or
// MariaDB session gets innodb_lock_wait_timeout and lock_wait_timeout of timeout
// rounded up to a whole second, unless the DSN sets them, so that the server ends a
// statement whose caller timed out instead of running it once a lock is free.
// Otherwise Open is New.
func Open(driver, dsn string, timeout time.Duration, opts ...Option) (*Store, error) {
	if err := checkTimeout(timeout); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return open(ctx, driver, dsn, timeout, buildConfig(opts))
}

// Timeout implements store.Timeouter: every call of the store ends within it.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Dialect returns the name of the store's dialect, such as "postgresql".
func (s *Store) Dialect() string { return s.dialect.Name() }

// Close implements store.RangeStore. It closes the store's prepared statements, and
// the database when Open opened it; a *sql.DB given to New stays open.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.q.close()
	if s.owned {
		err = errors.Join(err, s.db.Close())
	}
	return err
}

// begin bounds ctx by the store's timeout, unless its deadline comes sooner, and
// where the store must queue its own writes, waits for the store's turn. The cancel
// function ends both.
func (s *Store) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return ctx, nil, store.ErrClosed
	}
	ctx, cancel := storekit.BoundCall(ctx, s.timeout)
	if s.writer == nil {
		return ctx, cancel, nil
	}
	select {
	case s.writer <- struct{}{}:
		return ctx, func() { <-s.writer; cancel() }, nil
	case <-ctx.Done():
		cancel()
		return ctx, nil, ctx.Err()
	}
}

// fail wraps err with the operation, the key and the store (see failed).
func (s *Store) fail(ctx context.Context, op, key string, err error) error {
	return failed(ctx, fmt.Sprintf("%s: %s %q", s.name, op, key), err)
}

// failed wraps err with what failed. When ctx ended, the error also wraps ctx.Err(),
// whatever the driver made of the cancellation.
func failed(ctx context.Context, what string, err error) error {
	return fmt.Errorf("%s: %w", what, storekit.CallErr(ctx, err))
}

// poolSize is the connections of a pool that Open owns: enough for as many
// concurrent reservations, while many stores still fit a server's connection limit.
const poolSize = 16

// driverImports names the packages of the drivers Open knows, for the error of an
// unregistered one.
var driverImports = map[string]string{
	"pgx":       "github.com/jackc/pgx/v5/stdlib",
	"mysql":     "github.com/go-sql-driver/mysql",
	"sqlserver": "github.com/microsoft/go-mssqldb",
	"sqlite":    "modernc.org/sqlite",
}

func open(ctx context.Context, driver, dsn string, timeout time.Duration, cfg config) (*Store, error) {
	if isSQLite(driver) {
		if name, ok := sqliteCreates(dsn); ok {
			if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
				// A new file is a new sequence: say where, in case it is not the
				// file the operator meant.
				cfg.logger.Info("sqlstore: creating the SQLite database, which does not exist yet", "path", name)
			}
		}
	}
	db, gc, err := openGatedPool(driver, dsn, timeout)
	if err != nil {
		return nil, err
	}
	cfg.gated = gc
	s, err := newStore(ctx, db, true, timeout, cfg)
	if err != nil {
		db.Close()
		if name, ok := sqliteCreates(dsn); ok && isSQLite(driver) {
			if aerr := sqliteAccess(name); aerr != nil {
				return nil, fmt.Errorf("%w (%w)", aerr, err)
			}
		}
		return nil, err
	}
	return s, nil
}

// openGatedPool opens the pool of Open: the DSN with the settings that bound the
// database's waits by timeout, and poolSize connections, behind the connector that
// runs the store's replication gate on every new connection (replication.go).
func openGatedPool(driver, dsn string, timeout time.Duration) (*sql.DB, *gatedConnector, error) {
	if err := checkDriver(driver); err != nil {
		return nil, nil, fmt.Errorf("sqlstore: %w: %w", store.ErrInvalidArgument, err)
	}
	switch driver {
	case "sqlite":
		dsn = sqliteDSN(dsn, timeout)
	case "mysql":
		dsn = mysqlDSN(dsn, timeout)
	}
	db, gc, err := gatedPool(driver, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: open %s database: %w", driver, err)
	}
	db.SetMaxOpenConns(poolSize)
	db.SetMaxIdleConns(poolSize)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, gc, nil
}

// walLimit is the size to which SQLite cuts the write-ahead log's file once a
// checkpoint has emptied it: a little more than the 1,000 pages of 4 KiB at which
// it checkpoints. A reader of another process holds the checkpoint back while it
// reads, and without the limit the file would keep the size it grew to meanwhile.
const walLimit = 4 << 20

// sqliteDSN adds to a modernc.org/sqlite DSN a busy timeout of timeout, so that a
// process waits for another's write instead of failing, WAL mode, so that readers
// do not block the writer, and the write-ahead log's size limit (walLimit); unless
// the DSN sets them itself.
func sqliteDSN(dsn string, timeout time.Duration) string {
	var add []string
	if !strings.Contains(dsn, "busy_timeout") {
		add = append(add, fmt.Sprintf("_pragma=busy_timeout(%d)", (timeout+time.Millisecond-1)/time.Millisecond))
	}
	if !strings.Contains(dsn, "journal_mode") {
		add = append(add, "_pragma=journal_mode(wal)")
	}
	if !strings.Contains(dsn, "journal_size_limit") {
		add = append(add, fmt.Sprintf("_pragma=journal_size_limit(%d)", walLimit))
	}
	return appendParams(dsn, add)
}

// mysqlDSN adds to a go-sql-driver/mysql DSN the session variables that bound a
// statement's lock waits on the server by timeout, rounded up to a whole second
// (their unit): innodb_lock_wait_timeout (row locks) and lock_wait_timeout (metadata
// locks); unless the DSN sets them itself. The driver's cancellation only closes the
// connection, and a statement waiting on a lock would go on without its caller and
// commit once the lock is free, up to MySQL's default of 50 s later.
func mysqlDSN(dsn string, timeout time.Duration) string {
	set := map[string]bool{}
	// The parameters follow the first "?" after the last "/", as the driver reads
	// them: a password before the "/" may hold a "?" of its own.
	_, query, hasQuery := strings.Cut(dsn[strings.LastIndexByte(dsn, '/')+1:], "?")
	if hasQuery {
		for p := range strings.SplitSeq(query, "&") {
			name, _, _ := strings.Cut(p, "=")
			set[name] = true
		}
	}
	secs := strconv.FormatInt(lockWaitSeconds(timeout), 10)
	var add []string
	for _, v := range []string{"innodb_lock_wait_timeout", "lock_wait_timeout"} {
		if !set[v] {
			add = append(add, v+"="+secs)
		}
	}
	if len(add) == 0 {
		return dsn
	}
	sep := "?"
	if hasQuery {
		sep = "&"
	}
	return dsn + sep + strings.Join(add, "&")
}

// appendParams appends the parameters add (name=value) to the query of dsn.
func appendParams(dsn string, add []string) string {
	if len(add) == 0 {
		return dsn
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + strings.Join(add, "&")
}

// lockWaitSeconds is timeout rounded up to a whole second, the unit of MySQL's lock
// wait timeouts.
func lockWaitSeconds(timeout time.Duration) int64 {
	return int64((timeout + time.Second - 1) / time.Second)
}

// checkDriver reports a driver that database/sql does not know, saying what to import.
func checkDriver(driver string) error {
	if slices.Contains(sql.Drivers(), driver) {
		return nil
	}
	hint := fmt.Sprintf("import the package that registers it; registered drivers: %q", sql.Drivers())
	if pkg, ok := driverImports[driver]; ok {
		hint = fmt.Sprintf("add import _ %q to the program", pkg)
	} else if driver == "" {
		hint = "name one of pgx, mysql, sqlserver, sqlite"
	}
	return fmt.Errorf("database/sql driver %q is not registered: %s", driver, hint)
}

func checkTimeout(timeout time.Duration) error {
	if timeout <= 0 {
		return fmt.Errorf("sqlstore: %w: timeout %v, want > 0", store.ErrInvalidArgument, timeout)
	}
	return nil
}

func newStore(ctx context.Context, db *sql.DB, owned bool, timeout time.Duration, cfg config) (*Store, error) {
	if err := cfg.tables.check(); err != nil {
		return nil, fmt.Errorf("sqlstore: %w: %w", store.ErrInvalidArgument, err)
	}
	if _, err := ParseFetchPlan(string(cfg.plan)); err != nil {
		return nil, fmt.Errorf("sqlstore: %w: %w", store.ErrInvalidArgument, err)
	}
	var d Dialect
	if cfg.dialect != "" {
		var ok bool
		if d, ok = lookupDialect(cfg.dialect); !ok {
			return nil, fmt.Errorf("sqlstore: %w: dialect %q is unknown; want one of %s", store.ErrInvalidArgument, cfg.dialect, strings.Join(Dialects(), ", "))
		}
	}
	if err := db.PingContext(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("sqlstore: cannot reach the database within %v: %w", timeout, err)
		}
		return nil, fmt.Errorf("sqlstore: cannot reach the database: %w", err)
	}
	if d == nil {
		var err error
		if d, err = detect(ctx, db); err != nil {
			return nil, err
		}
	} else if err := checkDialect(ctx, db, d); err != nil {
		return nil, err
	}
	quoted := cfg.tables.quote(d)
	s := &Store{
		db:       db,
		owned:    owned,
		q:        newStmtCache(db),
		dialect:  d,
		ranges:   d.Ranges(quoted),
		leases:   d.Leases(quoted, d.NowMillis()),
		plan:     cfg.plan,
		timeout:  timeout,
		name:     fmt.Sprintf("sqlstore(%s, %s)", d.Name(), cfg.tables.Range),
		slotName: fmt.Sprintf("sqlstore(%s, %s)", d.Name(), cfg.tables.Slot),
		tables:   quoted,
		clock:    cfg.clock,
	}
	if d.Name() == "sqlite" {
		// One writer: callers queued on the file lock wait far longer than on the
		// pool, so a pool that Open owns gets one connection, and a store on the
		// application's pool queues its own calls.
		if owned {
			db.SetMaxOpenConns(1)
		} else {
			s.writer = make(chan struct{}, 1)
		}
	}
	if err := gateReplication(ctx, db, cfg.gated, d, timeout, cfg); err != nil {
		return nil, err
	}
	if err := s.checkTables(ctx, cfg); err != nil {
		return nil, err
	}
	if _, ok := d.(mysqlDialect); ok && !owned {
		s.checkLockWaits(ctx, cfg.logger)
	}
	cfg.logger.Debug("sqlstore: ready", "store", s.name, "fetchPlan", string(cfg.plan), "timeout", timeout)
	return s, nil
}

// checkLockWaits warns when a session of the application's MySQL or MariaDB pool
// lets a statement wait on a lock longer than the store's timeout, which Open
// bounds on its own pool (mysqlDSN): a statement whose caller timed out would then
// take effect when the lock is freed, up to that wait later.
func (s *Store) checkLockWaits(ctx context.Context, logger *slog.Logger) {
	var innodb, metadata int64
	err := s.db.QueryRowContext(ctx, "select @@session.innodb_lock_wait_timeout, @@session.lock_wait_timeout").Scan(&innodb, &metadata)
	bound := lockWaitSeconds(s.timeout)
	if err != nil || max(innodb, metadata) <= bound {
		return
	}
	logger.Warn("sqlstore: the database's sessions wait on locks longer than the store's timeout: a statement whose caller timed out may take effect that much later; add innodb_lock_wait_timeout and lock_wait_timeout to the DSN",
		"store", s.name, "innodb_lock_wait_timeout", innodb, "lock_wait_timeout", metadata,
		"dsn", fmt.Sprintf("innodb_lock_wait_timeout=%d&lock_wait_timeout=%d", bound, bound))
}

// detect returns the first dialect, registered ones first, that recognises the server.
// checkDialect refuses a built-in dialect named for a database that another
// built-in dialect recognises (mysql on a SQLite file), before the store creates or
// reads a table in the wrong SQL. A database that none recognises is taken at the
// option's word, which is what naming a dialect is for; a registered dialect
// answers for itself.
func checkDialect(ctx context.Context, db *sql.DB, d Dialect) error {
	if !slices.Contains(builtins, d) || d.Detect(ctx, db) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlstore: checking the dialect %q: %w", d.Name(), err)
	}
	for _, found := range builtins {
		if !found.Detect(ctx, db) {
			continue
		}
		if isMySQL(d) && isMySQL(found) {
			return nil // MySQL and MariaDB speak one SQL: either dialect serves either server
		}
		return fmt.Errorf("sqlstore: %w: the dialect option says %q, but the database speaks the %s dialect; correct the option, or leave it out to detect the dialect",
			store.ErrInvalidArgument, d.Name(), found.Name())
	}
	return nil
}

func isMySQL(d Dialect) bool {
	_, ok := d.(mysqlDialect)
	return ok
}

func detect(ctx context.Context, db *sql.DB) (Dialect, error) {
	for _, d := range candidates() {
		if d.Detect(ctx, db) {
			return d, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: detecting the dialect: %w", err)
	}
	return nil, fmt.Errorf("sqlstore: no dialect recognises the database's version query: name one with the dialect option (%s) or Register one", strings.Join(Dialects(), ", "))
}
