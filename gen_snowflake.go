package cosid

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// StrategySnowflake composes int64 ids of a time, a machine id and a sequence, a
// snowflake.Generator; its machine id is fixed or leased from a store.
const StrategySnowflake Strategy = "snowflake"

// snowflakeDef is the strategy snowflake: a snowflake.Generator whose int64 ids
// have the generator's Codec, on a fixed machine id or one leased from its store.
var snowflakeDef = strategyDef{
	name: StrategySnowflake,
	settings: []string{"store", "machine-id", "machine-ids", "slots", "layout", "epoch", "unit", "timestamp-bits", "machine-bits",
		"sequence-bits", "lease-ttl", "tolerance", "owner-key", "state-file", "codec"},
	plan:   checkSnowflake,
	leases: func(gc GeneratorConfig) bool { return gc.MachineID == nil },
}

// snowflakePlan is a checked Snowflake generator.
type snowflakePlan struct {
	layout  snowflake.Layout
	zone    *time.Location // of the friendly item, or UTC: the zone of a decoded time
	machine machinePlan
	codec   codec.Codec
}

func (s *snowflakePlan) intCodec() codec.Codec { return s.codec }

func (s *snowflakePlan) ownFile() (setting, path string) { return s.machine.ownFile() }

func (s *snowflakePlan) build(ctx context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
	g, err := s.machine.build(ctx, rt, p, st, s.layout)
	if err != nil {
		return nil, err
	}
	return &snowflakeGen{g: g, codec: s.codec}, nil
}

// take returns the generator's next n ids: a Snowflake id reserves nothing.
func (s *snowflakePlan) take(ctx context.Context, g *generator, _ string, n int64) ([]string, error) {
	return takeEach(ctx, g, n)
}

// takeEach returns the next n ids of g, one Next after another: Take of a strategy
// that reserves nothing.
func takeEach(ctx context.Context, g *generator, n int64) ([]string, error) {
	texts := make([]string, 0, n)
	for range n {
		text, err := g.next(ctx)
		if err != nil {
			return texts, err
		}
		texts = append(texts, text)
	}
	return texts, nil
}

func (s *snowflakePlan) decode(p *plan, text string) (Decoded, error) {
	v, err := s.codec.Decode(text)
	if err != nil {
		return Decoded{}, fmt.Errorf("cosid: generator %q: %w", p.name, err)
	}
	st := s.layout.Parse(v)
	if back, err := s.layout.Compose(st); err != nil || back != v {
		return Decoded{}, fmt.Errorf("cosid: generator %q: %d is not an id of its layout", p.name, v)
	}
	st.Time = st.Time.In(s.zone)
	return Decoded{Value: v, Snowflake: &st}, nil
}

func checkSnowflake(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) (strategyPlan, error) {
	s := &snowflakePlan{}
	var err error
	if s.layout, err = snowflakeLayout(p.path, gc); err != nil {
		return nil, err
	}
	if s.codec, err = buildCodec(p.path, gc.Codec, &s.layout); err != nil {
		return nil, err
	}
	s.zone = zoneOf(gc.Codec)
	if s.machine, err = checkMachine(p, gc, stores, s.layout); err != nil {
		return nil, err
	}
	return s, nil
}

func snowflakeLayout(path string, gc GeneratorConfig) (snowflake.Layout, error) {
	var l snowflake.Layout
	switch gc.Layout {
	case "", "default":
		l = snowflake.DefaultLayout()
	case "javascript":
		l = snowflake.JavaScriptLayout()
	default:
		return l, fmt.Errorf("%s.layout: unknown layout %q; want default or javascript", path, gc.Layout)
	}
	if gc.Epoch != "" {
		epoch, err := parseEpoch(gc.Epoch)
		if err != nil {
			return l, fmt.Errorf("%s.epoch: %q is not a date like 2026-01-01 or a time like 2026-01-01T00:00:00Z", path, gc.Epoch)
		}
		if epoch.After(time.Now()) {
			return l, fmt.Errorf("%s.epoch: %s is in the future; the ids' time counts from the epoch, which must have passed", path, gc.Epoch)
		}
		l.Epoch = epoch
	}
	if gc.Unit != nil {
		l.Unit = *gc.Unit
	}
	for _, f := range []struct {
		dst *int
		src *int
	}{{&l.TimestampBits, gc.TimestampBits}, {&l.MachineBits, gc.MachineBits}, {&l.SequenceBits, gc.SequenceBits}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("%s: layout: %w", path, err)
	}
	return l, nil
}

func parseEpoch(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// snowflakeGen is a built Snowflake generator.
type snowflakeGen struct {
	g     *snowflake.Generator
	codec codec.Codec
}

func (s *snowflakeGen) next() (string, error) {
	v, err := s.g.Next()
	if err != nil {
		return "", err
	}
	return s.codec.Encode(v)
}

func (s *snowflakeGen) ints() intGenerator         { return s.g }
func (s *snowflakeGen) lease() (store.Lease, bool) { return s.g.Lease() }
func (s *snowflakeGen) stats() []segment.Stats     { return nil }

// lost drops a generator that lost its lease, so that the next call leases a slot
// again.
func (s *snowflakeGen) lost(err error) bool { return errors.Is(err, snowflake.ErrLeaseLost) }
func (s *snowflakeGen) close() error        { return s.g.Close() }

// Snowflake returns the generator name of strategy snowflake, building it (and
// leasing its slot, under ctx) on first use. After it loses its lease, its Next
// fails with snowflake.ErrLeaseLost; Runtime.Next then builds a new one, and so
// does the next call of Snowflake.
func (rt *Runtime) Snowflake(ctx context.Context, name string) (*snowflake.Generator, error) {
	b, err := builtAs[*snowflakeGen](ctx, rt, name, &snowflakeDef)
	if err != nil {
		return nil, err
	}
	return b.g, nil
}

// Layout returns the bit layout of the Snowflake generator name, as configured; ok
// is false for another strategy or an unknown name. It builds nothing: a metric of
// the time a layout has left reads it at every scrape.
func (rt *Runtime) Layout(name string) (l snowflake.Layout, ok bool) {
	if g := rt.gens[name]; g != nil {
		if s, ok := g.plan.impl.(*snowflakePlan); ok {
			return s.layout, true
		}
	}
	return snowflake.Layout{}, false
}
