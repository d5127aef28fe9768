// Package cosid is CosId for Go: a YAML configuration of stores and generators, opened
// into a Runtime that hands out any configured generator's ids by name, typed or as
// text, and fills struct fields tagged `cosid:"name"`.
//
//	rt, err := cosid.Load(ctx, "cosid.yaml")
//	…
//	defer rt.Close()
//	bill, err := rt.Next("bill") // "20261027-000042"
//
// The generators live in package segment (segment, periodic-segment) and package
// snowflake; their text forms in package codec; the stores in the sub-packages of
// store. This package links the memory store and the SQL store with its embedded
// SQLite default; a binary that uses another store type imports its package.
package cosid

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// ErrConfig is wrapped by every error about the configuration: the message names the
// YAML path and what is allowed.
var ErrConfig = errors.New("invalid configuration")

// ErrUnknownGenerator means no generator of that name, or of that kind, is configured.
var ErrUnknownGenerator = errors.New("unknown generator")

// Runtime holds the stores and generators of a Config. It is safe for concurrent use.
type Runtime struct {
	namespace string
	stores    map[string]store.RangeStore
	gens      map[string]*generator
	closers   []io.Closer // the generators, in the order they were opened
}

// generator is one configured generator: exactly one of seg, per and snow is set.
type generator struct {
	name     string
	strategy string
	seg      *segment.Generator
	per      *segment.Periodic
	snow     *snowflake.Generator
	codec    codec.Codec        // the text of seg and snow
	grouped  codec.GroupedCodec // the text of per
}

// Option configures Open and Load.
type Option func(*runtimeOptions)

type runtimeOptions struct {
	logger *slog.Logger
}

// WithLogger sets the logger of the runtime's stores and generators (default
// slog.Default()); nil logs nothing.
func WithLogger(l *slog.Logger) Option { return func(o *runtimeOptions) { o.logger = l } }

// Load reads the configuration file at path and opens it. An empty path, or a path
// to a file that does not exist, gives the embedded default: a SQLite file cosid.db
// in the working directory.
func Load(ctx context.Context, path string, opts ...Option) (*Runtime, error) {
	if path == "" {
		return Open(ctx, DefaultConfig(), opts...)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Open(ctx, DefaultConfig(), opts...)
	}
	cfg, err := ReadConfig(path)
	if err != nil {
		return nil, configErr(err)
	}
	return Open(ctx, cfg, opts...)
}

// DefaultConfig returns the embedded default: namespace cosid and one store,
// "default", a SQLite file cosid.db in the working directory, created on first use.
// It configures no generators; callers add theirs.
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

// Open opens the stores and generators of cfg. Every error about cfg wraps ErrConfig
// and names the YAML path; on error, what was opened is closed again.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Runtime, error) {
	o := runtimeOptions{logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	rt := &Runtime{namespace: cfg.namespace(), stores: map[string]store.RangeStore{}, gens: map[string]*generator{}}
	if err := rt.open(ctx, cfg, o); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}

func (rt *Runtime) open(ctx context.Context, cfg Config, o runtimeOptions) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	plans := make([]*plan, 0, len(cfg.Generators))
	for _, name := range sortedKeys(cfg.Generators) {
		p, err := cfg.plan(name)
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	for _, name := range sortedKeys(cfg.Stores) {
		st, err := openStore(ctx, name, cfg.Stores[name], o.logger)
		if err != nil {
			return err
		}
		rt.stores[name] = st
	}
	for _, p := range plans {
		g, err := rt.build(ctx, p, o)
		if err != nil {
			return err
		}
		rt.gens[p.name] = g
	}
	return nil
}

func configErr(err error) error {
	if errors.Is(err, ErrConfig) {
		return err
	}
	return fmt.Errorf("cosid: %w: %w", ErrConfig, err)
}

// Next returns the text of the next id of the generator name.
func (rt *Runtime) Next(name string) (string, error) {
	g, err := rt.generator(name)
	if err != nil {
		return "", err
	}
	return g.next()
}

func (g *generator) next() (string, error) {
	switch {
	case g.per != nil:
		id, err := g.per.Next()
		if err != nil {
			return "", err
		}
		return g.grouped.Encode(id)
	case g.seg != nil:
		v, err := g.seg.Next()
		if err != nil {
			return "", err
		}
		return g.codec.Encode(v)
	default:
		v, err := g.snow.Next()
		if err != nil {
			return "", err
		}
		return g.codec.Encode(v)
	}
}

func (rt *Runtime) generator(name string) (*generator, error) {
	if g := rt.gens[name]; g != nil {
		return g, nil
	}
	return nil, fmt.Errorf("cosid: %w %q; configured: %s", ErrUnknownGenerator, name, quotedList(sortedKeys(rt.gens)))
}

func (rt *Runtime) kind(name, strategy string) (*generator, error) {
	g, err := rt.generator(name)
	if err != nil {
		return nil, err
	}
	if g.strategy != strategy {
		return nil, fmt.Errorf("cosid: %w: %q is a %s generator, not a %s one", ErrUnknownGenerator, name, g.strategy, strategy)
	}
	return g, nil
}

// Segment returns the generator name of strategy segment.
func (rt *Runtime) Segment(name string) (*segment.Generator, error) {
	g, err := rt.kind(name, strategySegment)
	if err != nil {
		return nil, err
	}
	return g.seg, nil
}

// Periodic returns the generator name of strategy periodic-segment.
func (rt *Runtime) Periodic(name string) (*segment.Periodic, error) {
	g, err := rt.kind(name, strategyPeriodic)
	if err != nil {
		return nil, err
	}
	return g.per, nil
}

// Snowflake returns the generator name of strategy snowflake.
func (rt *Runtime) Snowflake(name string) (*snowflake.Generator, error) {
	g, err := rt.kind(name, strategySnowflake)
	if err != nil {
		return nil, err
	}
	return g.snow, nil
}

// Codec returns the text form of the segment or snowflake generator name.
func (rt *Runtime) Codec(name string) (codec.Codec, error) {
	g, err := rt.generator(name)
	if err != nil {
		return nil, err
	}
	if g.codec == nil {
		return nil, fmt.Errorf("cosid: %w: %q is a %s generator; its ids have a GroupedCodec", ErrUnknownGenerator, name, g.strategy)
	}
	return g.codec, nil
}

// GroupedCodec returns the text form of the periodic-segment generator name.
func (rt *Runtime) GroupedCodec(name string) (codec.GroupedCodec, error) {
	g, err := rt.kind(name, strategyPeriodic)
	if err != nil {
		return nil, err
	}
	return g.grouped, nil
}

// GeneratorInfo describes a configured generator.
type GeneratorInfo struct {
	Name     string // as configured
	Strategy string // segment, periodic-segment or snowflake
	Key      string // the store key or lease namespace: {namespace}/{name}
}

// Generators describes the configured generators, sorted by name.
func (rt *Runtime) Generators() []GeneratorInfo {
	infos := make([]GeneratorInfo, 0, len(rt.gens))
	for _, name := range sortedKeys(rt.gens) {
		infos = append(infos, GeneratorInfo{Name: name, Strategy: rt.gens[name].strategy, Key: rt.key(name)})
	}
	return infos
}

func (rt *Runtime) key(name string) string { return rt.namespace + "/" + name }

// Close closes the generators, then the stores, and returns the first error.
func (rt *Runtime) Close() error {
	var errs []error
	for _, c := range slices.Backward(rt.closers) {
		errs = append(errs, c.Close())
	}
	for _, name := range sortedKeys(rt.stores) {
		errs = append(errs, rt.stores[name].Close())
	}
	rt.closers, rt.stores = nil, nil
	return errors.Join(errs...)
}
