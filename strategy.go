package cosid

import (
	"context"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// Strategy is how a generator makes its ids: the strategy key of its configuration.
// Its values are the words of the YAML, which the server and the CLI write as they
// are. Each strategy's constant is declared in its own file, beside what it does.
type Strategy string

// String returns s as the configuration writes it.
func (s Strategy) String() string { return string(s) }

// Strategies returns the strategies a configuration may name, in the order the
// docs list them.
func Strategies() []Strategy {
	out := make([]Strategy, len(strategyDefs))
	for i, d := range strategyDefs {
		out[i] = d.name
	}
	return out
}

// strategyDefs is the list of strategies, one file each (gen_segment.go,
// gen_periodic.go, gen_snowflake.go, gen_cosidgenerator.go): a new strategy is its file, its line here and
// its YAML fields in GeneratorConfig. Nothing outside a strategy's file asks which
// strategy a generator has: the root and its callers ask what a strategy can do,
// through the interfaces below and GeneratorInfo.
var strategyDefs = []*strategyDef{&segmentDef, &periodicDef, &snowflakeDef, &cosIDGeneratorDef}

// strategyDef is a strategy as the configuration names it.
type strategyDef struct {
	name Strategy
	// settings lists the YAML keys the strategy takes; strategy is everyone's. Each
	// key is also a yaml tag of GeneratorConfig, the flat schema users write:
	// foreignSetting joins the two, so that a key of another strategy is refused
	// with the keys this one takes.
	settings []string
	// plan checks gc's settings without I/O and returns the strategy's part of
	// the plan p, whose name, path, key and store are set.
	plan func(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) (strategyPlan, error)
	// leases reports whether a generator of gc leases a slot of its store (a
	// machine id); nil for a strategy that never does.
	leases func(gc GeneratorConfig) bool
}

// strategyPlan is a generator's strategy with its settings checked: all the state
// of its strategy, kept in the strategy's file, and what the root asks of it.
// A strategy may implement the capability interfaces below as well.
type strategyPlan interface {
	// build makes the generator of p on st, which is nil without a store.
	build(ctx context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error)
	// take returns the texts of g's next n ids, reserving exactly those where the
	// strategy reserves; storeKey is the plan's key, or one of a keyed template's.
	take(ctx context.Context, g *generator, storeKey string, n int64) ([]string, error)
	// decode says what text, a text of p's generator, stands for.
	decode(p *plan, text string) (Decoded, error)
}

// intIDs is a strategy whose ids are int64s, written by a Codec: NextInt, Codec
// and Fill's int64 fields serve them. Its built generators' nextInt works.
type intIDs interface {
	intCodec() codec.Codec
}

// ranger is a strategy that hands out runs of consecutive ids: NextRange.
type ranger interface {
	// nextRange takes n consecutive ids of b, a generator it built.
	nextRange(b built, n int64) (store.Range, error)
}

// keyable is a strategy that a keyed template may have: a sequence of its own per
// key a caller names.
type keyable interface {
	// buildKey builds the generator of one key of the template p, at the store
	// key storeKey, with opts.
	buildKey(p *plan, st store.RangeStore, storeKey string, opts []segment.Option) (built, error)
	// keySuffix is the longest text its generators add after a key's store key:
	// a periodic one's "/20261027".
	keySuffix() int
}

// reserver is a strategy that reserves ranges of its store with a batch policy:
// its reserve-timeout must cover the store's timeout, and Take reserves with it.
type reserver interface {
	batchPolicy() segment.BatchPolicy
	stated() (step, maxBatch bool) // the configuration states step, max-batch
}

// filer is a strategy whose generators may keep a file of their own, a state
// file: no two generators of a configuration may name one. setting is the YAML key
// that names it; path is absolute, or "" for none.
type filer interface {
	ownFile() (setting, path string)
}

// leaser is a built generator that leases its machine id, a slot of its store.
type leaser interface {
	// lease returns its current lease; ok is false for a fixed machine id.
	lease() (l store.Lease, ok bool)
}

// Lease returns the slot lease of the generator name, once it is built and leases
// its machine id (see GeneratorInfo.Leases). It builds nothing and does no I/O.
func (rt *Runtime) Lease(name string) (store.Lease, bool) {
	if g := rt.gens[name]; g != nil {
		if b := g.built.v.Load(); b != nil {
			if l, ok := b.built.(leaser); ok {
				return l.lease()
			}
		}
	}
	return store.Lease{}, false
}

// intGenerator is a generator of int64 ids: a segment.Generator, a
// snowflake.Generator.
type intGenerator interface {
	Next() (int64, error)
}

// live is a built generator as the runtime holds it: its adapter, and the
// generator of its int64 ids at hand, so that NextInt is that generator's Next
// after a load, without a call of the adapter.
type live struct {
	built
	ints intGenerator // nil for a strategy whose ids are text only
	// seg is ints when it is a segment generator, called without the interface:
	// the indirect call cost a held Source a quarter of a bare Next.
	seg *segment.Generator
	// decimal is set when seg's ids are written in plain decimal: Source.Next
	// writes them with strconv, without the two indirect calls of next.
	decimal bool
}

// strategyOf returns the definition of s, or nil.
func strategyOf(s Strategy) *strategyDef {
	for _, d := range strategyDefs {
		if d.name == s {
			return d
		}
	}
	return nil
}

// built is a generator built on its store, whatever its strategy: the one view the
// Runtime has of it. Each strategy's file has its adapter.
type built interface {
	// next returns the text of the next id.
	next() (string, error)
	// ints returns the generator of the int64 ids of a strategy of intIDs; nil
	// for the others.
	ints() intGenerator
	// stats returns the Stats of a generator on segments; nil for the others.
	stats() []segment.Stats
	// lost reports whether err, of next or nextInt, means the generator cannot go on
	// and must be built again, as a Snowflake generator that lost its lease.
	lost(err error) bool
	close() error
}
