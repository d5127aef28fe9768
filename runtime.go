// Package cosid is CosId for Go: a YAML configuration of stores and generators, opened
// into a Runtime that hands out any configured generator's ids by name, typed or as
// text, and fills struct fields tagged `cosid:"name"`.
//
// Load and Open check the whole configuration without I/O (errors wrap ErrConfig);
// stores open on first use, so a store that is down makes only the generators on it
// fail, with ErrUnavailable, until it is back.
//
//	rt, err := cosid.Load(ctx, "cosid.yaml")
//	…
//	defer rt.Close()
//	bill, err := rt.Next(ctx, "bill") // "20261027-000042"
//
// The generators live in package segment (segment, periodic-segment) and package
// snowflake; their text forms in package codec; the stores in the sub-packages of
// store. This package links the memory store and the SQL store, without a
// database/sql driver: a program on the embedded SQLite default imports
// _ "modernc.org/sqlite", and one that uses another store type imports its package.
package cosid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// Runtime holds the stores and generators of a Config. It opens a store when a
// generator on it, or Store, first needs it, and builds a generator on its first
// use, so a store that is down stops only the generators on it. It is safe for
// concurrent use.
type Runtime struct {
	o      runtimeOptions
	stores map[string]*lazy[storeBox]
	gens   map[string]*generator
	jan    janitor // closes the idle keys of keyed generators
}

// storeBox holds an opened store.
type storeBox struct{ st store.RangeStore }

// generator is one configured generator, built on first use.
type generator struct {
	rt      *Runtime
	plan    *plan
	codec   codec.Codec        // the text of segment and snowflake ids
	grouped codec.GroupedCodec // the text of periodic-segment ids
	built   lazy[built]
	keys    *keyedSet // a keyed template's live keys; nil when not keyed
}

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

// WithSnowflakeOptions adds the options f returns to every Snowflake generator the
// runtime builds, as WithSegmentOptions does for segments.
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
// time.Now): a key unused for idle-close on this clock is closed at its template's
// next call, or by the runtime's sweep, which runs on real time. A test moves it to
// see keys close without waiting.
func WithKeyClock(now func() time.Time) Option { return func(o *runtimeOptions) { o.keyNow = now } }

// Load reads the configuration file at path and opens it, as Open does. A path
// that does not exist is an error; an empty path gives DefaultConfig.
func Load(ctx context.Context, path string, opts ...Option) (*Runtime, error) {
	if path == "" {
		return Open(ctx, DefaultConfig(), opts...)
	}
	cfg, err := ReadConfig(path)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg, opts...)
}

// DefaultConfig returns the embedded default: namespace cosid and one store,
// "default", a SQLite file cosid.db in the working directory (its Dir is empty),
// created on first use. It configures no generators; callers add theirs. Its store
// needs the SQLite driver, which the program imports: _ "modernc.org/sqlite".
func DefaultConfig() Config {
	return Config{
		Namespace: DefaultNamespace,
		Stores: map[string]StoreConfig{DefaultStore: {Type: "sql", Settings: map[string]any{
			"driver": "sqlite", "dsn": "cosid.db", "timeout": "2s",
			"options": map[string]any{"initSchema": true},
		}}},
		Generators: map[string]GeneratorConfig{},
	}
}

// DefaultStore is the name of the store in DefaultConfig.
const DefaultStore = "default"

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

// Open checks cfg (Config.Validate) and returns its Runtime. It does no I/O: each
// store opens when first needed, each generator is built on its first use, and a
// store that cannot be reached then answers ErrUnavailable until it can. Every error
// of Open but a done ctx is about cfg: it wraps ErrConfig and names the YAML path.
// ctx is not kept.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Runtime, error) {
	o := options(opts)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cosid: %w", err)
	}
	plans, err := cfg.check()
	if err != nil {
		return nil, err
	}
	rt := &Runtime{o: o, stores: map[string]*lazy[storeBox]{}, gens: map[string]*generator{},
		jan: janitor{stop: make(chan struct{}), done: make(chan struct{})}}
	for name, sc := range cfg.Stores {
		rt.stores[name] = &lazy[storeBox]{
			what: fmt.Sprintf("store %q", name), now: o.now,
			open:  func(ctx context.Context) (*storeBox, error) { return o.openWrapped(ctx, name, sc, cfg.Dir) },
			close: func(b *storeBox) error { return b.st.Close() },
		}
	}
	for _, p := range plans {
		g := &generator{rt: rt, plan: p, codec: p.codec, grouped: p.grouped}
		g.built = lazy[built]{what: fmt.Sprintf("generator %q", p.name), now: o.now,
			close: func(b *built) error { return (*b).close() },
			open:  func(ctx context.Context) (*built, error) { return rt.build(ctx, p) }}
		if p.keyed {
			g.keys = newKeyedSet(rt, g)
		}
		rt.gens[p.name] = g
	}
	return rt, nil
}

// Store returns the store name, opening it when it is not open yet. A store that
// cannot be opened now gives an error wrapping ErrUnavailable and the cause (or
// ErrNotSetUp, when it answered but lacks its tables); a later
// call tries again (after a backoff of 100ms, doubling up to 5s, while it keeps
// failing). The store is also a store.SlotLeaseStore where its type leases slots.
// The Runtime closes it: callers do not.
func (rt *Runtime) Store(ctx context.Context, name string) (store.RangeStore, error) {
	l, ok := rt.stores[name]
	if !ok {
		return nil, fmt.Errorf("cosid: %w %q; configured: %s", ErrUnknownStore, name, quotedList(sortedKeys(rt.stores)))
	}
	b, err := l.get(ctx)
	if err != nil {
		return nil, prefixed(err)
	}
	return b.st, nil
}

// Next returns the text of the next id of the generator name. Its first call builds
// the generator, opening its store or leasing its slot under ctx; later calls do
// not wait on ctx.
func (rt *Runtime) Next(ctx context.Context, name string) (string, error) {
	g, err := rt.unkeyed(name)
	if err != nil {
		return "", err
	}
	text, err := g.next(ctx)
	if err != nil {
		return "", prefixed(err)
	}
	return text, nil
}

// NextInt returns the next id of the segment or snowflake generator name, as Next
// does its text. A periodic segment's ids are text only: its error wraps
// ErrUnknownGenerator.
func (rt *Runtime) NextInt(ctx context.Context, name string) (int64, error) {
	g, err := rt.unkeyed(name)
	if err != nil {
		return 0, err
	}
	if g.codec == nil {
		return 0, fmt.Errorf("cosid: %w: %q is a %s generator; its ids are text only", ErrUnknownGenerator, name, g.plan.strategy)
	}
	v, err := g.nextInt(ctx)
	if err != nil {
		return 0, prefixed(err)
	}
	return v, nil
}

// Build builds the generator name when it is not built yet, opening its store or
// leasing its slot under ctx, so that its first Next does not wait; it returns the
// error the generator's calls would get now. Next builds on its own: Build is for a
// caller that wants the cost paid, or the trouble known, early. A keyed generator
// builds a generator per key, on the key's first call: Build opens its store.
func (rt *Runtime) Build(ctx context.Context, name string) error {
	g, err := rt.generator(name)
	if err != nil {
		return err
	}
	if g.keys != nil {
		_, err := rt.Store(ctx, g.plan.store)
		return err
	}
	if _, err := g.get(ctx); err != nil {
		return prefixed(err)
	}
	return nil
}

// Stats returns the Stats of the segment or periodic-segment generator name once it
// is built: a segment's one, a periodic segment's current and next. It builds
// nothing and does no I/O; it returns nil for a generator not built yet, a
// Snowflake generator and an unknown name. A keyed generator's is one Stats for all
// its keys, live and closed, at the template's key {namespace}/{name}: the sums of
// their counters and rates, the largest batch and reservation time, and the error of
// the most recently used key that failed; nil before its first key.
func (rt *Runtime) Stats(name string) []segment.Stats {
	g := rt.gens[name]
	if g == nil {
		return nil
	}
	if g.keys != nil {
		if st, ok := g.keys.stats(); ok {
			return []segment.Stats{st}
		}
		return nil
	}
	if b := g.built.v.Load(); b != nil {
		return (*b).stats()
	}
	return nil
}

// get returns the built generator, building it (and opening its store) when needed.
func (g *generator) get(ctx context.Context) (*built, error) {
	if b := g.built.v.Load(); b != nil {
		return b, nil
	}
	if g.plan.store != "" {
		if _, err := g.rt.stores[g.plan.store].get(ctx); err != nil {
			return nil, fmt.Errorf("generator %q: %w", g.plan.name, err)
		}
	}
	return g.built.get(ctx)
}

func (g *generator) next(ctx context.Context) (string, error) {
	b, err := g.get(ctx)
	if err != nil {
		return "", err
	}
	text, err := (*b).next()
	if err != nil {
		return "", g.failed(b, err)
	}
	return text, nil
}

// nextInt returns the next id of a segment or snowflake generator.
func (g *generator) nextInt(ctx context.Context) (int64, error) {
	b, err := g.get(ctx)
	if err != nil {
		return 0, err
	}
	v, err := (*b).nextInt()
	if err != nil {
		return 0, g.failed(b, err)
	}
	return v, nil
}

// failed classifies an error of a built generator. A generator that cannot go on
// (a snowflake that lost its lease) is dropped, so that the next call builds it
// again.
func (g *generator) failed(b *built, err error) error {
	switch {
	case (*b).lost(err):
		if cerr := g.built.reset(b); cerr != nil {
			g.rt.o.logger.Warn("cosid: closing a generator that lost its lease", "generator", g.plan.name, "error", cerr)
		}
		return fmt.Errorf("generator %q %w: %w", g.plan.name, ErrUnavailable, err)
	case errors.Is(err, ErrUnavailable): // segment.ErrUnavailable, snowflake.ErrClockBackwards
		return fmt.Errorf("generator %q %w: %w", g.plan.name, ErrUnavailable, err)
	}
	return fmt.Errorf("generator %q: %w", g.plan.name, err)
}

func (rt *Runtime) generator(name string) (*generator, error) {
	if g := rt.gens[name]; g != nil {
		return g, nil
	}
	return nil, fmt.Errorf("cosid: %w %q; configured: %s", ErrUnknownGenerator, name, quotedList(sortedKeys(rt.gens)))
}

// builtAs returns the built generator name of strategy s, building it under ctx
// when needed, as the adapter type B of s.
func builtAs[B built](ctx context.Context, rt *Runtime, name string, s Strategy) (B, error) {
	var zero B
	g, err := rt.unkeyed(name)
	if err != nil {
		return zero, err
	}
	if g.plan.strategy != s {
		return zero, fmt.Errorf("cosid: %w: %q is a %s generator, not a %s one", ErrUnknownGenerator, name, g.plan.strategy, s)
	}
	b, err := g.get(ctx)
	if err != nil {
		return zero, prefixed(err)
	}
	return (*b).(B), nil
}

// Codec returns the text form of the segment or snowflake generator name.
func (rt *Runtime) Codec(name string) (codec.Codec, error) { return codecOf(rt, name) }

// GroupedCodec returns the text form of the periodic-segment generator name.
func (rt *Runtime) GroupedCodec(name string) (codec.GroupedCodec, error) {
	return groupedCodecOf(rt, name)
}

// plan returns the plan of the generator name, for planner.
func (rt *Runtime) plan(name string) (*plan, error) {
	g, err := rt.generator(name)
	if err != nil {
		return nil, err
	}
	return g.plan, nil
}

// GeneratorInfo describes a configured generator.
type GeneratorInfo struct {
	Name     string // as configured
	Strategy Strategy
	Key      string // the store key or lease namespace: {namespace}/{name}
	Store    string // the configured store; empty for a snowflake with a fixed machine id
	Leases   bool   // it leases its machine id from Store: a snowflake without machine-id
	// Keyed is a template of a sequence per key, at Key/{key}: see NextKey.
	Keyed bool
}

// Generators describes the configured generators, sorted by name.
func (rt *Runtime) Generators() []GeneratorInfo {
	infos := make([]GeneratorInfo, 0, len(rt.gens))
	for _, name := range sortedKeys(rt.gens) {
		p := rt.gens[name].plan
		infos = append(infos, GeneratorInfo{Name: name, Strategy: p.strategy, Key: p.key, Store: p.store, Leases: p.leases(), Keyed: p.keyed})
	}
	return infos
}

// Close closes the generators, then the stores, and returns the first error. Calls
// after Close fail.
func (rt *Runtime) Close() error {
	var errs []error
	rt.stopJanitor()
	for _, name := range sortedKeys(rt.gens) {
		g := rt.gens[name]
		errs = append(errs, g.built.shut())
		if g.keys != nil {
			errs = append(errs, g.keys.shut())
		}
	}
	for _, name := range sortedKeys(rt.stores) {
		errs = append(errs, rt.stores[name].shut())
	}
	return errors.Join(errs...)
}
