package cosid

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cosid-go/cosid/segment"
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
	few    []namedGen // the generators when there are at most maxScan, else nil
	jan    janitor    // closes the idle keys of keyed generators
}

// namedGen is a generator beside its name, for the scan of Runtime.few.
type namedGen struct {
	name string
	g    *generator
}

// maxScan is how many generators Runtime.generator scans rather than hash the
// name: a name handed to Next is a constant nearly always, whose comparison with
// the same constant is a length and a pointer, so the scan of a few costs less
// than the hash that a map lookup starts with (a third of NextInt by name in the
// CPU profile).
const maxScan = 8

// storeBox holds an opened store.
type storeBox struct{ st store.RangeStore }

// generator is one configured generator, built on first use.
type generator struct {
	rt     *Runtime
	plan   *plan
	intIDs bool   // its strategy's ids are int64s (intIDs)
	ranges ranger // its strategy, when it hands out ranges; nil else
	built  lazy[live]
	keys   *keyedSet   // a keyed template's live keys; nil when not keyed
	count  *keyCounter // a keyed template's count of keys made, with max-keys; nil else

	capacity Capacity // of its codec, when hasCap: capacity.go
	hasCap   bool
	full     fullSet // the keys seen full
}

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
	cfg.offline = false // what is opened is read and resolved
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
		g := &generator{rt: rt, plan: p}
		_, g.intIDs = p.impl.(intIDs)
		g.ranges, _ = p.impl.(ranger)
		if s, ok := p.impl.(strider); ok && s.idStride().strided() {
			g.ranges = nil // its ranges of store values are not runs of ids
		}
		g.capacity, g.hasCap = capacity(p)
		g.built = lazy[live]{what: fmt.Sprintf("generator %q", p.name), now: o.now,
			close: func(b *live) error { return b.close() },
			open:  func(ctx context.Context) (*live, error) { return rt.build(ctx, p) }}
		if p.keyed {
			g.keys = newKeyedSet(rt, g)
			if p.maxKeys > 0 {
				g.count = newKeyCounter(g)
			}
		}
		rt.gens[p.name] = g
	}
	if len(rt.gens) <= maxScan {
		for _, name := range sortedKeys(rt.gens) {
			rt.few = append(rt.few, namedGen{name, rt.gens[name]})
		}
	}
	rt.warnCapacity()
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
		return nil, unknownName(ErrUnknownStore, name, sortedKeys(rt.stores))
	}
	b, err := l.get(ctx)
	if err != nil {
		return nil, prefixed(err)
	}
	return b.st, nil
}

// Next returns the text of the next id of the generator name, as its Source
// does: rt.Source(name, "") and its Next. A caller that asks often holds the Source.
func (rt *Runtime) Next(ctx context.Context, name string) (string, error) {
	if g := rt.unkeyed(name); g != nil {
		// Source.Next's path of nearly every call, here rather than a call away.
		if l := g.built.v.Load(); l != nil && l.decimal {
			v, ok := l.seg.TryNext()
			if ok && v >= 0 {
				return strconv.FormatInt(v, 10), nil
			}
			return g.decimalNext(l, v, ok)
		}
		return Source{g: g}.next(ctx)
	}
	src, err := rt.Source(name, "")
	if err != nil {
		return "", err
	}
	return src.Next(ctx)
}

// NextInt returns the next id of the generator name, as its Source does:
// rt.Source(name, "") and its NextInt.
func (rt *Runtime) NextInt(ctx context.Context, name string) (int64, error) {
	if g := rt.unkeyed(name); g != nil {
		// Source.NextInt's path of nearly every call, here rather than a call away.
		if l := g.built.v.Load(); l != nil && l.seg != nil {
			if v, ok := l.seg.TryNext(); ok {
				return v, nil
			}
			return g.segNextInt(l)
		}
		return Source{g: g}.nextInt(ctx)
	}
	src, err := rt.Source(name, "")
	if err != nil {
		return 0, err
	}
	return src.NextInt(ctx)
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

// Stats returns what the generator name has done so far. It builds nothing and
// does no I/O: a generator not built yet, and an unknown name, have zero Stats. A
// keyed template's are its keys' together, and their counts (Stats.Keys).
func (rt *Runtime) Stats(name string) Stats {
	g := rt.gens[name]
	switch {
	case g == nil:
		return Stats{}
	case g.keys != nil:
		st := Stats{Keys: g.keys.keyStats()}
		if agg, ok := g.keys.stats(); ok {
			st.Segments = []segment.Stats{agg}
		}
		return st
	}
	if b := g.built.v.Load(); b != nil {
		return Stats{Segments: b.stats()}
	}
	return Stats{}
}

// get returns the built generator, building it (and opening its store) when needed.
func (g *generator) get(ctx context.Context) (*live, error) {
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
	text, err := b.next()
	if err != nil {
		return "", g.failed(b, err)
	}
	return text, nil
}

// nextInt returns the next id of a generator of int64 ids.
func (g *generator) nextInt(ctx context.Context) (int64, error) {
	b, err := g.get(ctx)
	if err != nil {
		return 0, err
	}
	v, err := b.ints.Next()
	if err != nil {
		return 0, g.failed(b, err)
	}
	return v, nil
}

// failed classifies an error of a built generator. A generator that cannot go on
// (a snowflake that lost its lease) is dropped, so that the next call builds it
// again.
func (g *generator) failed(b *live, err error) error {
	switch {
	case b.lost(err):
		if cerr := g.built.reset(b); cerr != nil {
			g.rt.o.logger.Warn("cosid: closing a generator that lost its lease", "generator", g.plan.name, "error", cerr)
		}
		return fmt.Errorf("generator %q %w: %w", g.plan.name, ErrUnavailable, err)
	case errors.Is(err, ErrUnavailable): // segment.ErrUnavailable, snowflake.ErrClockBackwards
		return fmt.Errorf("generator %q %w: %w", g.plan.name, ErrUnavailable, err)
	}
	err = exhausted(g.plan.name, err)
	g.markFull("", err)
	return fmt.Errorf("generator %q: %w", g.plan.name, err)
}

func (rt *Runtime) generator(name string) (*generator, error) {
	if rt.few != nil {
		for i := range rt.few {
			if rt.few[i].name == name {
				return rt.few[i].g, nil
			}
		}
	} else if g := rt.gens[name]; g != nil {
		return g, nil
	}
	return nil, rt.unknownGenerator(name)
}

// unkeyed returns the generator name when it is configured and not keyed, the
// Source of Next and NextInt by name without Source's checks and their errors;
// else nil, and Source says what is wrong. The scan of few is inlined into Next
// and NextInt, a call less an id; the map is out of line.
func (rt *Runtime) unkeyed(name string) *generator {
	for i := range rt.few {
		if rt.few[i].name == name {
			return rt.few[i].g.unkeyed()
		}
	}
	if rt.few != nil {
		return nil
	}
	return rt.gens[name].unkeyed()
}

// unkeyed returns g when it is a generator that is not keyed; nil else, and for a
// nil g.
func (g *generator) unkeyed() *generator {
	if g != nil && g.keys == nil {
		return g
	}
	return nil
}

// unknownGenerator is the error of a generator name that is not configured, apart
// so that the lookup of one that is stays small.
func (rt *Runtime) unknownGenerator(name string) error {
	return unknownName(ErrUnknownGenerator, name, sortedKeys(rt.gens))
}

// builtAs returns the built generator name of strategy def, building it under ctx
// when needed, as the adapter type B of def: the typed accessors Segment, Periodic
// and Snowflake.
func builtAs[B built](ctx context.Context, rt *Runtime, name string, def *strategyDef) (B, error) {
	var zero B
	src, err := rt.Source(name, "")
	if err != nil {
		return zero, err
	}
	g := src.g
	if g.plan.def != def {
		return zero, fmt.Errorf("cosid: %w: %q is a %s generator, not a %s one", ErrUnknownGenerator, name, g.plan.def.name, def.name)
	}
	b, err := g.get(ctx)
	if err != nil {
		return zero, prefixed(err)
	}
	return b.built.(B), nil
}

// plan returns the plan of the generator name, for planner.
func (rt *Runtime) plan(name string) (*plan, error) {
	g, err := rt.generator(name)
	if err != nil {
		return nil, err
	}
	return g.plan, nil
}

// GeneratorInfo describes a configured generator: its names, and what its strategy
// can do, which is what callers ask instead of its strategy.
type GeneratorInfo struct {
	Name     string // as configured
	Strategy Strategy
	Key      string // the store key or lease namespace: {namespace}/{name}
	Store    string // the configured store; empty for a fixed machine id
	// Leases says it leases its machine id, a slot of Store's: a snowflake or a
	// cosid-generator without machine-id.
	Leases bool
	// Keyed is a template of a sequence per key, at Key/{key}: see Source.
	Keyed bool
	// IntIDs says its ids are int64s, with a Codec: NextInt serves them. Without
	// it, its ids are text only (a periodic segment's period and value, a
	// cosid-generator's 80 bits).
	IntIDs bool
	// Ranges says it hands out runs of consecutive ids: Source.NextRange.
	Ranges bool
	// Stride and Residue say its ids are ≡ Residue (mod Stride) (stride:,
	// residue:); Stride is 1 for a generator whose ids are not strided.
	Stride, Residue int64
}

// Generators describes the configured generators, sorted by name.
func (rt *Runtime) Generators() []GeneratorInfo {
	infos := make([]GeneratorInfo, 0, len(rt.gens))
	for _, name := range sortedKeys(rt.gens) {
		p := rt.gens[name].plan
		g := rt.gens[name]
		info := GeneratorInfo{Name: name, Strategy: p.def.name, Key: p.key, Store: p.store, Leases: p.leases,
			Keyed: p.keyed, IntIDs: g.intIDs, Ranges: g.ranges != nil, Stride: 1}
		if s, ok := p.impl.(strider); ok {
			info.Stride, info.Residue = s.idStride().n, s.idStride().r
		}
		infos = append(infos, info)
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

// build makes the generator that p plans, on its store, which is open.
func (rt *Runtime) build(ctx context.Context, p *plan) (*live, error) {
	var st store.RangeStore
	if p.store != "" {
		b, err := rt.stores[p.store].get(ctx)
		if err != nil {
			return nil, err
		}
		st = b.st
	}
	b, err := p.impl.build(ctx, rt, p, st)
	var pe *segment.PolicyError
	if errors.As(err, &pe) {
		return nil, configErr(policyErr(p.path, err))
	}
	if err != nil {
		return nil, err
	}
	l := &live{built: b, ints: b.ints()}
	l.seg, _ = l.ints.(*segment.Generator)
	if sg, ok := b.(*segmentGen); ok {
		l.decimal = sg.decimal
	}
	return l, nil
}

// segmentOptions returns the options of a generator on segments of p: the
// runtime's logger, then WithSegmentOptions's.
func (rt *Runtime) segmentOptions(p *plan) []segment.Option {
	opts := []segment.Option{segment.WithLogger(rt.o.logger)}
	if f := rt.o.segOpts; f != nil {
		opts = append(opts, f(p.name, p.store)...)
	}
	return opts
}
