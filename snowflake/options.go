package snowflake

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/cosid-go/cosid/store"
)

// Option configures a Generator. The lease options (namespace, owner key, limit,
// tolerance, TTL) only matter to New.
type Option func(*options)

type options struct {
	namespace string
	ownerKey  string
	limit     int // 0: 2^MachineBits
	base      int // WithMachineBase: slot s is machine base + s
	tolerance time.Duration
	ttl       time.Duration
	now       func() time.Time // nil: time.Now, read by the clock goroutine
	spin      time.Duration
	broken    time.Duration
	logger    *slog.Logger
	onLost    func(error)
	observer  Observer
	wide      bool   // WithWideIDs
	statePath string // WithStateFile
}

// Defaults of the options.
const (
	// DefaultNamespace is the namespace of a generator without WithNamespace.
	DefaultNamespace = "snowflake"
	// DefaultTolerance is the clock skew allowed without WithTolerance.
	DefaultTolerance = time.Second
	// DefaultLeaseTTL is the lease TTL without WithLeaseTTL.
	DefaultLeaseTTL = time.Minute
	// DefaultSpin is CosId 4.x's spin threshold for a clock that moved back.
	DefaultSpin = 10 * time.Millisecond
	// DefaultBroken is CosId 4.x's broken threshold for a clock that moved back.
	DefaultBroken = 2 * time.Second
)

func buildOptions(opts []Option) options {
	o := options{
		namespace: DefaultNamespace,
		tolerance: DefaultTolerance,
		ttl:       DefaultLeaseTTL,
		spin:      DefaultSpin,
		broken:    DefaultBroken,
		logger:    slog.Default(),
		observer:  noObserver{},
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.observer == nil {
		o.observer = noObserver{}
	}
	return o
}

func (o *options) check(l Layout) error {
	switch {
	case o.spin < 0 || o.broken < o.spin:
		return fmt.Errorf("snowflake: %w: clock thresholds spin %v and broken %v, want 0 ≤ spin ≤ broken", store.ErrInvalidArgument, o.spin, o.broken)
	case o.limit < 0 || o.limit > 1<<min(l.MachineBits, 30):
		return fmt.Errorf("snowflake: %w: limit %d, want 1–%d (2^MachineBits)", store.ErrInvalidArgument, o.limit, 1<<min(l.MachineBits, 30))
	case o.base < 0 || o.base > 0 && (o.limit == 0 || o.base+o.limit > 1<<min(l.MachineBits, 30)):
		return fmt.Errorf("snowflake: %w: machine base %d with limit %d, want base ≥ 0 and a limit with base + limit ≤ %d (2^MachineBits)",
			store.ErrInvalidArgument, o.base, o.limit, 1<<min(l.MachineBits, 30))
	}
	return nil
}

// leaseRequest returns the request for a slot of the options' namespace.
func (o *options) leaseRequest(l Layout) (store.LeaseRequest, error) {
	owner := o.ownerKey
	if owner == "" {
		host, err := os.Hostname()
		if err != nil {
			return store.LeaseRequest{}, fmt.Errorf("snowflake: no owner key given and no host name to use: %w", err)
		}
		owner = host
	}
	limit := o.limit
	if limit == 0 {
		limit = min(1<<min(l.MachineBits, 30), store.MaxSlots)
	}
	req := store.LeaseRequest{Namespace: o.namespace, OwnerKey: owner, Limit: limit, Tolerance: o.tolerance, TTL: o.ttl, Preferred: -1}
	if err := store.CheckLeaseRequest(req); err != nil {
		return req, fmt.Errorf("snowflake: %w", err)
	}
	return req, nil
}

// WithNamespace sets the namespace whose slots the generators share (default
// DefaultNamespace). Generators whose ids must never collide use one namespace.
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// WithOwnerKey sets the stable identity of this instance (default the host name): an
// instance that starts again gets its earlier slot back when that slot is free.
func WithOwnerKey(key string) Option { return func(o *options) { o.ownerKey = key } }

// WithLimit sets how many slots the namespace has (default 2^MachineBits, or
// store.MaxSlots when that is less; at most 2^MachineBits). It is fixed at the
// namespace's first use.
func WithLimit(n int) Option { return func(o *options) { o.limit = n } }

// WithMachineBase makes the slot s that New leases the machine base + s, so that
// the machines of its namespace are [base, base + limit): regions that each lease
// from a store of their own split the machine ids into ranges that do not overlap
// (docs/regions.md). It needs WithLimit, with base + limit ≤ 2^MachineBits.
func WithMachineBase(base int) Option { return func(o *options) { o.base = base } }

// WithTolerance sets the clock skew allowed between an instance and the store
// (default DefaultTolerance). It is fixed at the namespace's first use. A larger
// tolerance lets clocks disagree more; a new owner of a slot waits up to twice it
// before its first id. New refuses a clock off the store's by more, and a generator
// whose clock gets ahead of the store's by more stops (ErrClockSkew).
func WithTolerance(d time.Duration) Option { return func(o *options) { o.tolerance = d } }

// WithLeaseTTL sets how long a lease lasts without renewal (default
// DefaultLeaseTTL). The generator renews it every third of the TTL, so a store that
// is down for less than about two thirds of it stops no one.
func WithLeaseTTL(d time.Duration) Option { return func(o *options) { o.ttl = d } }

// WithClock sets the clock the ids are stamped with (default time.Now). An injected
// clock is read on every Next, and is meant for tests; the default clock is read by
// a goroutine of the generator once a Unit, and by Next once every 1,024 ids and at
// the start of every Unit (see the package doc). Waits use the runtime's timers, so
// tests that control time use testing/synctest, which moves both.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithClockBackwards sets how a generator meets a clock that moved back behind its
// last id: by less than spin it spins until the clock catches up, by less than
// broken it sleeps, and by more it fails with an error wrapping ErrClockBackwards
// (defaults DefaultSpin and DefaultBroken, CosId 4.x's thresholds).
func WithClockBackwards(spin, broken time.Duration) Option {
	return func(o *options) { o.spin, o.broken = spin, broken }
}

// WithLogger sets the logger for lease events and clock trouble (default
// slog.Default()). A nil logger logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		o.logger = l
	}
}

// WithWideIDs makes a generator of ids wider than an int64: its layout may give
// time and sequence together up to 63 bits, and the machine up to 30 more beside
// them. Its Next fails with an error wrapping ErrWideIDs; NextStamp hands out
// each id's time and sequence, which the caller writes with the machine (Machine),
// as CosId 4.x's CosIdGenerator writes 44+20+16 = 80 bits as text. Everything else,
// the lease, its floors and ceilings, the clock guard and the state file, is as
// for int64 ids.
func WithWideIDs() Option { return func(o *options) { o.wide = true } }

// WithStateFile keeps the state of a generator of a fixed machine (NewFixed) in the
// file at path: the time up to which its ids may be stamped, written ahead of them
// (about every StateEvery while it hands out ids, synced to disk and replaced
// atomically) and, at Close, the time of its last id. NewFixed reads it and stamps
// nothing at or before that time: it waits for a clock set back by less than the
// broken threshold (WithClockBackwards), as Next does, and refuses one set back
// further with an error wrapping ErrClockBackwards. So a restart with the clock set
// back never repeats an id, as a leased slot's Floor guarantees for New. A missing
// file is a first start; one that cannot be read, or is another machine's, is an
// error wrapping ErrStateFile that names its absolute path. The directory must be
// writable. New refuses it: a lease carries the last time in its Floor.
func WithStateFile(path string) Option { return func(o *options) { o.statePath = path } }

// WithOnLeaseLost calls f once, from a goroutine of the generator, when the
// generator stops because its lease was lost; err wraps ErrLeaseLost. f must not
// block for long.
func WithOnLeaseLost(f func(err error)) Option { return func(o *options) { o.onLost = f } }
