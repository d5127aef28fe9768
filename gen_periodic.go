package cosid

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// StrategyPeriodic hands out ids that start again in every period (a year, month
// or day in a zone), a segment.Periodic; an id is its period and a value, so its
// ids are text only.
const StrategyPeriodic Strategy = "periodic-segment"

// periodicDef is the strategy periodic-segment: a segment.Periodic whose ids, a
// period and a value, have the generator's GroupedCodec.
var periodicDef = strategyDef{
	name: StrategyPeriodic,
	settings: []string{"store", "step", "initial-offset", "lookahead", "max-batch", "reserve-timeout", "range-ttl", "give-back",
		"codec", "stride", "residue", "period", "zone", "prewarm", "seal-after", "keyed", "max-live-keys", "idle-close"},
	plan: checkPeriodic,
}

// periodicPlan is a checked periodic-segment generator.
type periodicPlan struct {
	onSegments
	period  segment.Period
	loc     *time.Location
	policy  segment.PeriodicPolicy
	grouped codec.GroupedCodec
}

func checkPeriodic(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) (strategyPlan, error) {
	on, err := p.checkSegments(gc, stores)
	if err != nil {
		return nil, err
	}
	s := &periodicPlan{onSegments: on, policy: segment.DefaultPeriodicPolicy()}
	if gc.Period == "" {
		return nil, p.errorf("period", "missing; want YEAR, YEAR_MONTH or YEAR_MONTH_DAY")
	}
	if s.period, err = segment.ParsePeriod(gc.Period); err != nil || gc.Period != strings.ToUpper(gc.Period) {
		return nil, p.errorf("period", "%q is not a period; %s", gc.Period, strictyaml.OneOf(gc.Period, []string{"YEAR", "YEAR_MONTH", "YEAR_MONTH_DAY"}))
	}
	if gc.Zone == "" {
		return nil, p.errorf("zone", "missing; the zone is explicit: want an IANA time zone such as Asia/Shanghai or UTC")
	}
	if s.loc, err = loadZone(gc.Zone); err != nil {
		return nil, p.errorf("zone", "%v", err)
	}
	if gc.Prewarm != nil {
		s.policy.Prewarm = *gc.Prewarm
	}
	if gc.SealAfter != nil {
		s.policy.SealAfter = *gc.SealAfter
	}
	if err := s.policy.Validate(); err != nil {
		return nil, policyErr(p.path, err)
	}
	if p.keyed && s.policy.SealAfter > 0 {
		return nil, p.errorf("seal-after", "a keyed generator seals no past period: that would take a timer for every key; leave seal-after out and seal past periods offline (cosid seal)")
	}
	if s.grouped, err = buildGroupedCodec(p.path, s.period, gc.Codec); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *periodicPlan) perPeriod() bool { return true }

// writes encodes v in a period of 2026: the width of a value is the same in
// every period.
func (s *periodicPlan) writes(v int64) error {
	_, err := s.grouped.Encode(segment.GroupedID{Period: s.period.Key(time.Date(2026, 10, 27, 0, 0, 0, 0, s.loc)), Value: v})
	return err
}

// keySuffix is the "/20261027" that a period adds to a store key.
func (s *periodicPlan) keySuffix() int { return len("/20261027") }

func (s *periodicPlan) build(_ context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
	// Every period reports at the generator's key: a metric series a period would
	// add one set a day (or month) to an observer's, and keep the old ones.
	return s.buildKey(p, st, p.key, append(rt.segmentOptions(p), segment.WithObserverKey(p.key)))
}

// buildKey builds the periodic-segment generator of p at the store key storeKey.
func (s *periodicPlan) buildKey(_ *plan, st store.RangeStore, storeKey string, opts []segment.Option) (built, error) {
	g, err := segment.NewPeriodic(st, storeKey, s.period, s.loc, s.batch, s.policy, s.options(opts)...)
	if err != nil {
		return nil, err
	}
	return &periodicGen{g: g, grouped: s.grouped}, nil
}

func (s *periodicPlan) take(ctx context.Context, g *generator, storeKey string, n int64) ([]string, error) {
	period := s.period.Key(time.Now().In(s.loc))
	return g.reserve(ctx, storeKey+"/"+period, n, s.batch, func(v int64) (string, error) {
		id, err := s.stride.id(v)
		if err != nil {
			return "", err
		}
		return s.grouped.Encode(segment.GroupedID{Period: period, Value: id})
	})
}

func (s *periodicPlan) decode(p *plan, text string) (Decoded, error) {
	id, err := s.grouped.Decode(text)
	if err != nil {
		return Decoded{}, fmt.Errorf("cosid: generator %q: %w", p.name, err)
	}
	return Decoded{Period: id.Period, Value: id.Value}, nil
}

// periodicGen is a built periodic-segment generator.
type periodicGen struct {
	g       *segment.Periodic
	grouped codec.GroupedCodec
}

func (s *periodicGen) next() (string, error) {
	id, err := s.g.Next()
	if err != nil {
		return "", err
	}
	return s.grouped.Encode(id)
}

// ints is nil: a periodic segment's ids are text, a period and a value.
func (s *periodicGen) ints() intGenerator { return nil }

func (s *periodicGen) stats() []segment.Stats { return s.g.Stats() }
func (s *periodicGen) lost(error) bool        { return false }
func (s *periodicGen) close() error           { return s.g.Close() }

// Periodic returns the generator name of strategy periodic-segment, building it on
// first use: opening its store under ctx.
func (rt *Runtime) Periodic(ctx context.Context, name string) (*segment.Periodic, error) {
	b, err := builtAs[*periodicGen](ctx, rt, name, &periodicDef)
	if err != nil {
		return nil, err
	}
	return b.g, nil
}

// Period returns the period and zone of the periodic-segment generator name, as
// configured; ok is false for another strategy or an unknown name. It builds
// nothing.
func (rt *Runtime) Period(name string) (p segment.Period, loc *time.Location, ok bool) {
	if g := rt.gens[name]; g != nil {
		if s, ok := g.plan.impl.(*periodicPlan); ok {
			return s.period, s.loc, true
		}
	}
	return 0, nil, false
}

// GroupedCodec returns the text form of the periodic-segment generator name.
func (rt *Runtime) GroupedCodec(name string) (codec.GroupedCodec, error) {
	return groupedCodecOf(rt, name)
}

// GroupedCodec returns the text form of the periodic-segment generator name, without
// opening anything.
func (c Config) GroupedCodec(name string) (codec.GroupedCodec, error) { return groupedCodecOf(c, name) }

func groupedCodecOf(ps planner, name string) (codec.GroupedCodec, error) {
	p, err := ps.plan(name)
	if err != nil {
		return nil, err
	}
	s, ok := p.impl.(*periodicPlan)
	if !ok {
		return nil, fmt.Errorf("cosid: %w: %q is a %s generator, not a periodic-segment one", ErrUnknownGenerator, name, p.def.name)
	}
	return s.grouped, nil
}
