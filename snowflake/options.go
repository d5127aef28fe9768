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
	tolerance time.Duration
	ttl       time.Duration
	now       func() time.Time // nil: time.Now, read by the clock goroutine
	spin      time.Duration
	broken    time.Duration
	logger    *slog.Logger
	onLost    func(error)
	observer  Observer
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

// WithOnLeaseLost calls f once, from a goroutine of the generator, when the
// generator stops because its lease was lost; err wraps ErrLeaseLost. f must not
// block for long.
func WithOnLeaseLost(f func(err error)) Option { return func(o *options) { o.onLost = f } }
