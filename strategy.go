package cosid

import (
	"context"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// Strategy is how a generator makes its ids: the strategy key of its configuration.
// Its values are the words of the YAML, which the server and the CLI write as they
// are.
type Strategy string

const (
	// StrategySegment hands out int64 ids from ranges it reserves in a store, a
	// segment.Generator: ids rise, with gaps where a process stopped (S4).
	StrategySegment Strategy = "segment"
	// StrategyPeriodic hands out ids that start again in every period (a year, month
	// or day in a zone), a segment.Periodic; an id is its period and a value, so its
	// ids are text only.
	StrategyPeriodic Strategy = "periodic-segment"
	// StrategySnowflake composes int64 ids of a time, a machine id and a sequence, a
	// snowflake.Generator; its machine id is fixed or leased from a store.
	StrategySnowflake Strategy = "snowflake"
)

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

// strategyDefs holds what the root knows of each strategy, one file each
// (gen_segment.go, gen_periodic.go, gen_snowflake.go): a new strategy is a new
// file, its constant and its line here.
var strategyDefs = []*strategyDef{&segmentDef, &periodicDef, &snowflakeDef}

// strategyDef is everything of the root that depends on a generator's strategy.
// Nothing outside a strategy's file asks which strategy a generator has.
type strategyDef struct {
	name Strategy
	// settings lists the YAML keys the strategy takes; strategy is everyone's.
	settings []string
	// check checks gc's settings without I/O and fills p with what build needs.
	check func(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) error
	// build makes the generator of p on st, which is nil without a store.
	build func(ctx context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error)
	// keyed builds the generator of one key of the keyed template p: at the store
	// key key, with opts. It is nil for a strategy that cannot be keyed.
	keyed func(p *plan, st store.RangeStore, key string, opts []segment.Option) (built, error)
	// take returns the texts of g's next n ids, reserving exactly those where the
	// strategy reserves; key is the store key: the plan's, or one of a keyed
	// template's keys.
	take func(ctx context.Context, g *generator, key string, n int64) ([]string, error)
	// decode says what text, a text of p's generator, stands for.
	decode func(p *plan, text string) (Decoded, error)
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
	// nextInt returns the next id; a strategy whose ids are text only fails with
	// ErrUnknownGenerator.
	nextInt() (int64, error)
	// stats returns the Stats of a generator on segments; nil for the others.
	stats() []segment.Stats
	// lost reports whether err, of next or nextInt, means the generator cannot go on
	// and must be built again, as a Snowflake generator that lost its lease.
	lost(err error) bool
	close() error
}
