package sqlstore

import (
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store/storekit"
)

// Tables names the store's tables. A name is an identifier or schema.identifier, each
// part an ASCII letter or underscore followed by letters, digits or underscores, at
// most 63 bytes. The store quotes the names for its dialect, so a name keeps its case
// and may be a reserved word.
type Tables struct {
	Range     string // default cosid_range
	Slot      string // default cosid_slot
	Namespace string // default cosid_namespace
}

// DefaultTables returns cosid_range, cosid_slot and cosid_namespace.
func DefaultTables() Tables {
	return Tables{Range: "cosid_range", Slot: "cosid_slot", Namespace: "cosid_namespace"}
}

// withDefaults fills the empty names of t with the defaults.
func (t Tables) withDefaults() Tables {
	d := DefaultTables()
	if t.Range != "" {
		d.Range = t.Range
	}
	if t.Slot != "" {
		d.Slot = t.Slot
	}
	if t.Namespace != "" {
		d.Namespace = t.Namespace
	}
	return d
}

// check reports the first table name that checkTableName refuses, naming the option.
func (t Tables) check() error {
	for _, n := range []struct{ option, name string }{
		{"rangeTable", t.Range}, {"slotTable", t.Slot}, {"namespaceTable", t.Namespace},
	} {
		if err := checkTableName(n.name); err != nil {
			return fmt.Errorf("%s: %w", n.option, err)
		}
	}
	return nil
}

func (t Tables) quote(d Dialect) Tables {
	return Tables{Range: quoteTableName(d, t.Range), Slot: quoteTableName(d, t.Slot), Namespace: quoteTableName(d, t.Namespace)}
}

// FetchPlan says how a reservation learns the value it wrote.
type FetchPlan string

const (
	// FetchStatement reads the value from the reserving statement itself (returning,
	// output, or MySQL's last_insert_id), in one round trip. The default.
	FetchStatement FetchPlan = "statement"
	// FetchTransaction updates and then reads the row in one transaction, for an SQL
	// proxy that rewrites or loses last_insert_id, or that splits reads from writes.
	// It costs a few more round trips.
	FetchTransaction FetchPlan = "transaction"
)

var fetchPlans = []FetchPlan{FetchStatement, FetchTransaction}

// ParseFetchPlan returns the FetchPlan named s, or an error naming the allowed values.
func ParseFetchPlan(s string) (FetchPlan, error) {
	for _, p := range fetchPlans {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("fetchPlan %q is unknown; want %s or %s", s, FetchStatement, FetchTransaction)
}

// Option configures a Store.
type Option func(*config)

// config is what the options set, from the defaults that buildConfig starts with.
type config struct {
	dialect    string
	initSchema bool
	tables     Tables
	plan       FetchPlan
	logger     *slog.Logger
	clock      *ClockOffset
	// settings is the YAML path of the store's entry, such as cosid.stores.db, when
	// it was opened from a configuration: its errors then name YAML settings, not
	// options.
	settings   string
	allowAsync bool            // WithAllowAsyncReplicas
	gated      *gatedConnector // the pool's, when Open made it (replication.go)
}

// withSettingsPath marks a store opened from the configuration entry at path.
func withSettingsPath(path string) Option { return func(c *config) { c.settings = path } }

func buildConfig(opts []Option) config {
	c := config{tables: DefaultTables(), plan: FetchStatement, logger: slog.Default()}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithDialect names the dialect (see Dialects) instead of detecting it from the
// server's version query. Naming one serves a server that speaks a dialect's SQL
// but answers its version query otherwise. A server that another dialect
// recognises is refused at open (mysql on a SQLite file), before any table is made;
// mysql and mariadb serve either server.
func WithDialect(name string) Option { return func(c *config) { c.dialect = strings.TrimSpace(name) } }

// WithInitSchema makes New create the tables that do not exist yet, add to tables
// that an older script created the columns they lack (those with a default or
// that may be NULL) and create the slot table's index when it is missing (default
// false: New fails on a missing table or column, and says how to create it).
func WithInitSchema(on bool) Option { return func(c *config) { c.initSchema = on } }

// WithTables sets the table names; empty fields keep their defaults.
func WithTables(t Tables) Option { return func(c *config) { c.tables = t.withDefaults() } }

// WithFetchPlan sets how a reservation reads the value it wrote (default
// FetchStatement).
func WithFetchPlan(p FetchPlan) Option { return func(c *config) { c.plan = p } }

// WithAllowAsyncReplicas lets the store run on a database whose replication or
// flushing can lose an acknowledged reservation (default false: the store refuses
// it at open and on every new connection, with ErrUnsafeReplication). The store
// then leaves the session's settings as they are and logs a warning at every
// start. A standby or read-only server is refused even so: no reservation can be
// kept there.
func WithAllowAsyncReplicas(on bool) Option { return func(c *config) { c.allowAsync = on } }

// ClockOffset moves the store clock of the stores opened WithClockOffset on it, so
// that a test moves the database's clock instead of waiting for it: such a store,
// wrapped in a type whose MoveClock calls Move, is a storetest.ClockMover for
// RunSlotLeaseStore, as in sqlstore's integration tests (integration/sqldb) and a
// Dialect's own. The offset is added to the dialect's NowMillis in every lease
// statement. The zero value moves nothing; it is safe for concurrent use.
type ClockOffset struct{ ms atomic.Int64 }

// Move moves the clock by d, rounded up to a whole millisecond: forward, or back when
// d is negative. Every store opened WithClockOffset(c) sees the move at its next
// lease statement.
func (c *ClockOffset) Move(d time.Duration) { c.ms.Add(storekit.MillisUp(d)) }

// WithClockOffset makes the store's clock the database's moved by c, for tests only:
// a deployment has no reason to move its store clock.
func WithClockOffset(c *ClockOffset) Option { return func(cfg *config) { cfg.clock = c } }

// WithLogger sets the logger of start-up events, such as tables created (default
// slog.Default()). A nil logger logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		// A local, not l: one Option may configure stores opened concurrently.
		logger := l
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		c.logger = logger
	}
}
