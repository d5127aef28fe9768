package cosid

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// StrategySegment hands out int64 ids from ranges it reserves in a store, a
// segment.Generator: ids rise, with gaps where a process stopped (S4).
const StrategySegment Strategy = "segment"

// DefaultStrategy is the strategy of a generator that a tool makes up for a name
// no configuration has, as `cosid next` and `cosid decode` do: a segment, whose
// ids are plain decimal.
const DefaultStrategy = StrategySegment

// segmentDef is the strategy segment: a segment.Generator whose int64 ids have the
// generator's Codec.
var segmentDef = strategyDef{
	name: StrategySegment,
	settings: []string{"store", "step", "initial-offset", "lookahead", "max-batch", "reserve-timeout", "range-ttl", "give-back",
		"codec", "stride", "residue", "keyed", "max-live-keys", "idle-close", "max-keys"},
	plan: func(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) (strategyPlan, error) {
		on, err := p.checkSegments(gc, stores)
		if err != nil {
			return nil, err
		}
		c, err := buildCodec(p.path, gc.Codec, nil)
		if err != nil {
			return nil, err
		}
		return &segmentPlan{onSegments: on, codec: c, decimal: len(gc.Codec) == 0}, nil
	},
}

// onSegments is what the strategies on segments share: the batch policy of their
// reservations, the stride that maps their store values to ids, and whether Close
// gives back.
type onSegments struct {
	batch      segment.BatchPolicy
	stride     stride
	noGiveBack bool // give-back: false

	// stepSet and maxBatchSet say the configuration states step and max-batch: the
	// use it expects, which the start's capacity warnings weigh (capacity.go).
	stepSet, maxBatchSet bool
}

func (o onSegments) batchPolicy() segment.BatchPolicy { return o.batch }
func (o onSegments) stated() (step, maxBatch bool)    { return o.stepSet, o.maxBatchSet }
func (o onSegments) idStride() stride                 { return o.stride }

// checkSegments checks the settings that the strategies on segments share.
func (p *plan) checkSegments(gc GeneratorConfig, stores map[string]StoreConfig) (onSegments, error) {
	batch, err := p.checkBatch(gc, stores)
	if err != nil {
		return onSegments{}, err
	}
	s, err := p.checkStride(gc)
	return onSegments{batch: batch, stride: s, noGiveBack: gc.GiveBack != nil && !*gc.GiveBack,
		stepSet: gc.Step != nil, maxBatchSet: gc.MaxBatch != nil}, err
}

// options returns opts with the options the settings add, in a slice of its own:
// opts may be a keyed template's, shared by its keys.
func (o onSegments) options(opts []segment.Option) []segment.Option {
	opts = o.stride.options(opts)
	if o.noGiveBack {
		opts = append(opts[:len(opts):len(opts)], segment.WithoutGiveBack())
	}
	return opts
}

// segmentPlan is a checked segment generator: its batch policy and codec.
type segmentPlan struct {
	onSegments
	codec codec.Codec
	// decimal is set for the default codec, plain decimal, which a Source writes
	// with strconv and without the codec's indirect call.
	decimal bool
}

func (s *segmentPlan) intCodec() codec.Codec { return s.codec }
func (s *segmentPlan) keySuffix() int        { return 0 }
func (s *segmentPlan) perPeriod() bool       { return false }

func (s *segmentPlan) writes(v int64) error {
	_, err := s.codec.Encode(v)
	return err
}

func (s *segmentPlan) build(_ context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
	return s.buildKey(p, st, p.key, rt.segmentOptions(p))
}

// buildKey builds the segment generator of p at the store key storeKey.
func (s *segmentPlan) buildKey(_ *plan, st store.RangeStore, storeKey string, opts []segment.Option) (built, error) {
	g, err := segment.New(st, storeKey, s.batch, s.options(opts)...)
	if err != nil {
		return nil, err
	}
	return &segmentGen{g: g, codec: s.codec, decimal: s.decimal}, nil
}

func (s *segmentPlan) take(ctx context.Context, g *generator, storeKey string, n int64) ([]string, error) {
	return g.reserve(ctx, storeKey, n, s.batch, func(v int64) (string, error) {
		id, err := s.stride.id(v)
		if err != nil {
			return "", err
		}
		return s.codec.Encode(id)
	})
}

func (s *segmentPlan) nextRange(b built, n int64) (store.Range, error) {
	return b.(*segmentGen).g.NextRange(n)
}

func (s *segmentPlan) decode(p *plan, text string) (Decoded, error) {
	v, err := s.codec.Decode(text)
	if err != nil {
		return Decoded{}, fmt.Errorf("cosid: generator %q: %w", p.name, err)
	}
	return Decoded{Value: v}, nil
}

// checkBatch checks the store, the batch policy and the keyed settings of a
// generator on segments, and returns its batch policy.
func (p *plan) checkBatch(gc GeneratorConfig, stores map[string]StoreConfig) (segment.BatchPolicy, error) {
	if err := p.checkStore(stores, ""); err != nil {
		return segment.BatchPolicy{}, err
	}
	batch := batchPolicy(gc)
	if err := batch.Validate(); err != nil {
		return batch, policyErr(p.path, err)
	}
	return batch, nil
}

// batchPolicy is segment.DefaultBatchPolicy with the settings gc gives.
func batchPolicy(gc GeneratorConfig) segment.BatchPolicy {
	p := segment.DefaultBatchPolicy()
	set := func(dst *int64, src *int64) {
		if src != nil {
			*dst = *src
		}
	}
	setDur := func(dst *time.Duration, src *time.Duration) {
		if src != nil {
			*dst = *src
		}
	}
	if gc.Step != nil {
		p.Step, p.MaxBatch = *gc.Step, 0 // the default MaxBatch follows the step
	}
	set(&p.InitialOffset, gc.InitialOffset)
	set(&p.MaxBatch, gc.MaxBatch)
	setDur(&p.Lookahead, gc.Lookahead)
	setDur(&p.ReserveTimeout, gc.ReserveTimeout)
	setDur(&p.RangeTTL, gc.RangeTTL)
	return p
}

// segmentGen is a built segment generator.
type segmentGen struct {
	g       *segment.Generator
	codec   codec.Codec
	decimal bool // the codec is plain decimal
}

func (s *segmentGen) next() (string, error) {
	v, err := s.g.Next()
	if err != nil {
		return "", err
	}
	return s.text(v)
}

// text writes the id v: with strconv for plain decimal ids, else (or for a negative
// v, whose error the codec says) with its codec.
func (s *segmentGen) text(v int64) (string, error) {
	if s.decimal && v >= 0 {
		return strconv.FormatInt(v, 10), nil
	}
	return s.codec.Encode(v)
}

func (s *segmentGen) ints() intGenerator     { return s.g }
func (s *segmentGen) stats() []segment.Stats { return []segment.Stats{s.g.Stats()} }
func (s *segmentGen) lost(error) bool        { return false }
func (s *segmentGen) close() error           { return s.g.Close() }

// Segment returns the generator name of strategy segment, building it on first use:
// opening its store under ctx. A keyed one's keys are reached through Source.
func (rt *Runtime) Segment(ctx context.Context, name string) (*segment.Generator, error) {
	b, err := builtAs[*segmentGen](ctx, rt, name, &segmentDef)
	if err != nil {
		return nil, err
	}
	return b.g, nil
}
