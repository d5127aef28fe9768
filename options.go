package cosid

import (
	"log/slog"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// Option configures Open and Load.
type Option func(*runtimeOptions)

type runtimeOptions struct {
	logger   *slog.Logger
	now      func() time.Time // the clock of the retry backoff
	keyNow   func() time.Time // the clock of idle-close
	segOpts  func(generator, store string) []segment.Option
	snowOpts func(generator, store string) []snowflake.Option
	wrap     func(name, typ string, st store.RangeStore) store.RangeStore // WithStoreWrapper
}

// WithSegmentOptions adds the options f returns to every segment and
// periodic-segment generator the runtime builds; generator and store are the names
// of the generator and its store in the configuration. It is how observers such as
// the metrics package's reach the generators of a configuration.
func WithSegmentOptions(f func(generator, store string) []segment.Option) Option {
	return func(o *runtimeOptions) { o.segOpts = f }
}

// WithSnowflakeOptions adds the options f returns to every snowflake.Generator the
// runtime builds (those of the strategies snowflake and cosid-generator), as
// WithSegmentOptions does for segments.
func WithSnowflakeOptions(f func(generator, store string) []snowflake.Option) Option {
	return func(o *runtimeOptions) { o.snowOpts = f }
}

// WithLogger sets the logger of the runtime's stores and generators (default
// slog.Default()); nil logs nothing.
func WithLogger(l *slog.Logger) Option { return func(o *runtimeOptions) { o.logger = l } }

// WithRetryClock sets the clock of the runtime's retry backoff (default time.Now):
// after a store or generator fails to open, calls fail fast with ErrUnavailable
// until the backoff, read on this clock, has passed. A test moves it to end a
// backoff without waiting. It changes no generator's clock: segment.WithClock and
// snowflake.WithClock, through WithSegmentOptions and WithSnowflakeOptions, do that.
func WithRetryClock(now func() time.Time) Option { return func(o *runtimeOptions) { o.now = now } }

// WithKeyClock sets the clock that the idle-close of keyed generators reads (default
// time.Now): a key unused for idle-close on this clock is closed when its template
// opens a key, or by the runtime's sweep, which runs on real time; the two read the
// clock, and a call on a live key stamps its use with their latest reading. A test
// moves it, then opens a key, to see keys close without waiting.
func WithKeyClock(now func() time.Time) Option { return func(o *runtimeOptions) { o.keyNow = now } }

// WithStoreWrapper has the runtime hand out wrap(name, typ, st) instead of each store
// st it opens, where name and typ are the store's name and type in the
// configuration: its generators and Store use what wrap returns, and Close closes
// it. It is how tracing reaches the store calls of a configuration. The store wrap
// returns must be a store.SlotLeaseStore or a store.Admin where st is one, or the
// generators that lease slots on it cannot.
func WithStoreWrapper(wrap func(name, typ string, st store.RangeStore) store.RangeStore) Option {
	return func(o *runtimeOptions) { o.wrap = wrap }
}

// options applies opts to the defaults: slog.Default and the wall clock. A nil
// logger of WithLogger discards.
func options(opts []Option) runtimeOptions {
	o := runtimeOptions{logger: slog.Default(), now: time.Now, keyNow: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	return o
}
