package segment

import (
	"log/slog"
	"time"

	"github.com/cosid-go/cosid/store"
)

// Option configures a Generator or a Periodic.
type Option func(*options)

type options struct {
	now        func() time.Time
	onFailed   func(error)
	observer   Observer
	logger     *slog.Logger
	exec       func(task func()) // nil: a goroutine a reservation
	seedRate   float64           // ids/s to size the first reservation by, until measured
	obsKey     string            // the key events are reported under; "" is the generator's own
	noTimers   bool              // WithoutTimers
	stride     int64             // WithStride; 0 is 1
	residue    int64
	noGiveBack bool // WithoutGiveBack
}

func buildOptions(opts []Option) options {
	o := options{now: time.Now, observer: nopObserver{}, logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithClock sets the clock that measures the id rate, backoff and RangeTTL (default
// time.Now). Waits for a reservation use the runtime's timers, so tests that control
// time use testing/synctest, which moves both.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithOnRefillFailed calls f with every failed reservation, from the goroutine that
// made it. f must not block.
func WithOnRefillFailed(f func(error)) Option { return func(o *options) { o.onFailed = f } }

// WithLogger sets the logger for refill failures and recoveries (default
// slog.Default()). A nil logger logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		o.logger = l
	}
}

// WithExecutor runs background reservations with exec, such as a bounded pool,
// instead of a goroutine each: the first one, those ahead of need, and retries. exec
// is called with no lock held, from the goroutine that starts the reservation (New,
// a Next, a timer), which waits while exec blocks or runs the task itself; a pool
// should hand the task over and return. A reservation that a task of exec starts
// gets a goroutine, so that a full pool never waits for itself. A caller that needs
// ids before exec has started the reservation starts it on a goroutine of its own
// instead, and waits at most ReserveTimeout, like every caller.
func WithExecutor(exec func(task func())) Option { return func(o *options) { o.exec = exec } }

// withSeedRate sizes the first reservations by rate ids/s, until the generator has
// measured its own: the next period of a busy Periodic starts with ranges its size.
func withSeedRate(rate float64) Option { return func(o *options) { o.seedRate = rate } }

// WithStride makes a generator hand out only ids ≡ residue (mod stride), dense in
// that class: the store counts its values v as always, and the generator hands out
// v·stride + residue. Regions that each have a store of their own and one stride,
// with residues 0 … stride−1, never share an id (docs/regions.md). A value whose id
// would pass math.MaxInt64 is not handed out: the generator is exhausted
// (store.ErrExhausted) there, as a store is at math.MaxInt64. Such a generator's
// ids are not consecutive, so its NextRange fails. New refuses stride < 1 and a
// residue outside [0, stride); the default is stride 1, residue 0.
func WithStride(stride, residue int64) Option {
	return func(o *options) { o.stride, o.residue = stride, residue }
}

// WithObserver reports a generator's events to o, for metrics.
func WithObserver(o Observer) Option { return func(opts *options) { opts.observer = o } }

// WithObserverKey reports the events of a generator to its Observer under key
// instead of the generator's store key, so that many generators can share one
// series: the runtime's keyed generators report every key of a template under the
// template's key.
func WithObserverKey(key string) Option { return func(o *options) { o.obsKey = key } }

// WithoutTimers makes a Periodic arm no timer of its own: it prepares the next
// period on the first call inside the prewarm window rather than when the window
// opens, and it seals no past period, so NewPeriodic refuses a SealAfter. It is for
// processes holding many Periodics, such as the runtime's keyed generators, where a
// timer each would cost memory and wake-ups; a Generator arms none anyway, but for the
// retry after a failed reservation.
func WithoutTimers() Option { return func(o *options) { o.noTimers = true } }

// WithoutGiveBack keeps Close from giving the unused tail of the last range back to
// the store (S7): what the generator reserved and did not hand out stays a gap, as
// with a store that cannot take it back. It is for users who rely on a key's value
// only rising, such as a monitor or an audit of the store's values, or who want each
// run's ids to start past every id the previous run reserved.
func WithoutGiveBack() Option { return func(o *options) { o.noGiveBack = true } }

// Observer receives the events of generators, for metrics. Its methods are called
// outside the hot path, but a caller may be waiting: they must be fast and safe for
// concurrent use.
type Observer interface {
	// Reserved reports a range the store gave key, and how long it took.
	Reserved(key string, r store.Range, took time.Duration)
	// RefillFailed reports a failed reservation of key.
	RefillFailed(key string, err error, took time.Duration)
	// Waited reports a caller of key that waited for a reservation, and how long.
	Waited(key string, took time.Duration)
}

type nopObserver struct{}

func (nopObserver) Reserved(string, store.Range, time.Duration) {}
func (nopObserver) RefillFailed(string, error, time.Duration)   {}
func (nopObserver) Waited(string, time.Duration)                {}
