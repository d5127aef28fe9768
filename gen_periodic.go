package cosid

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// periodicDef is the strategy periodic-segment: a segment.Periodic whose ids, a
// period and a value, have the generator's GroupedCodec.
var periodicDef = strategyDef{
	name: StrategyPeriodic,
	settings: []string{"store", "step", "initial-offset", "lookahead", "max-batch", "reserve-timeout", "range-ttl", "codec",
		"period", "zone", "prewarm", "seal-after", "keyed", "max-live-keys", "idle-close"},
	check: checkPeriodic,
	build: func(_ context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
		return newPeriodicGen(p, st, p.key, rt.segmentOptions(p))
	},
	keyed: newPeriodicGen,
	take: func(ctx context.Context, g *generator, key string, n int64) ([]string, error) {
		p := g.plan
		period := p.period.Key(time.Now().In(p.loc))
		return g.reserve(ctx, key+"/"+period, n, func(v int64) (string, error) {
			return g.grouped.Encode(segment.GroupedID{Period: period, Value: v})
		})
	},
	decode: func(p *plan, text string) (Decoded, error) {
		id, err := p.grouped.Decode(text)
		if err != nil {
			return Decoded{}, fmt.Errorf("cosid: generator %q: %w", p.name, err)
		}
		return Decoded{Period: id.Period, Value: id.Value}, nil
	},
}

// newPeriodicGen builds the periodic-segment generator of p at the store key key.
func newPeriodicGen(p *plan, st store.RangeStore, key string, opts []segment.Option) (built, error) {
	g, err := segment.NewPeriodic(st, key, p.period, p.loc, p.batch, p.periodic, opts...)
	if err != nil {
		return nil, err
	}
	return &periodicGen{g: g, grouped: p.grouped}, nil
}

func checkPeriodic(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) error {
	if err := p.checkBatch(gc, stores); err != nil {
		return err
	}
	if gc.Period == "" {
		return p.errorf("period", "missing; want YEAR, YEAR_MONTH or YEAR_MONTH_DAY")
	}
	var err error
	if p.period, err = segment.ParsePeriod(gc.Period); err != nil || gc.Period != strings.ToUpper(gc.Period) {
		return p.errorf("period", "%q is not a period; want YEAR, YEAR_MONTH or YEAR_MONTH_DAY", gc.Period)
	}
	if gc.Zone == "" {
		return p.errorf("zone", "missing; the zone is explicit: want an IANA time zone such as Asia/Shanghai or UTC")
	}
	if p.loc, err = loadZone(gc.Zone); err != nil {
		return p.errorf("zone", "%v", err)
	}
	p.periodic = segment.DefaultPeriodicPolicy()
	if gc.Prewarm != nil {
		p.periodic.Prewarm = *gc.Prewarm
	}
	if gc.SealAfter != nil {
		p.periodic.SealAfter = *gc.SealAfter
	}
	if err := p.periodic.Validate(); err != nil {
		return policyErr(p.path, err)
	}
	if p.keyed && p.periodic.SealAfter > 0 {
		return p.errorf("seal-after", "a keyed generator seals no past period: that would take a timer for every key; leave seal-after out and seal past periods offline (cosid seal)")
	}
	p.grouped, err = buildGroupedCodec(p.path, p.period, gc.Codec)
	return err
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

func (s *periodicGen) nextInt() (int64, error) {
	return 0, fmt.Errorf("%w: a periodic-segment generator's ids are text, a period and a value", ErrUnknownGenerator)
}

func (s *periodicGen) stats() []segment.Stats { return s.g.Stats() }
func (s *periodicGen) lost(error) bool        { return false }
func (s *periodicGen) close() error           { return s.g.Close() }

// Periodic returns the generator name of strategy periodic-segment, building it on
// first use: opening its store under ctx.
func (rt *Runtime) Periodic(ctx context.Context, name string) (*segment.Periodic, error) {
	b, err := builtAs[*periodicGen](ctx, rt, name, StrategyPeriodic)
	if err != nil {
		return nil, err
	}
	return b.g, nil
}
