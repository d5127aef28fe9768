package cosid

import (
	"context"
	"fmt"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// segmentDef is the strategy segment: a segment.Generator whose int64 ids have the
// generator's Codec.
var segmentDef = strategyDef{
	name: StrategySegment,
	settings: []string{"store", "step", "initial-offset", "lookahead", "max-batch", "reserve-timeout", "range-ttl", "codec",
		"keyed", "max-live-keys", "idle-close"},
	check: func(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) error {
		if err := p.checkBatch(gc, stores); err != nil {
			return err
		}
		var err error
		p.codec, err = buildCodec(p.path, gc.Codec, nil)
		return err
	},
	build: func(_ context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
		return newSegmentGen(p, st, p.key, rt.segmentOptions(p))
	},
	keyed: newSegmentGen,
	take: func(ctx context.Context, g *generator, key string, n int64) ([]string, error) {
		return g.reserve(ctx, key, n, g.codec.Encode)
	},
	decode: func(p *plan, text string) (Decoded, error) {
		v, err := p.codec.Decode(text)
		if err != nil {
			return Decoded{}, fmt.Errorf("cosid: generator %q: %w", p.name, err)
		}
		return Decoded{Value: v}, nil
	},
}

// newSegmentGen builds the segment generator of p at the store key key.
func newSegmentGen(p *plan, st store.RangeStore, key string, opts []segment.Option) (built, error) {
	g, err := segment.New(st, key, p.batch, opts...)
	if err != nil {
		return nil, err
	}
	return &segmentGen{g: g, codec: p.codec}, nil
}

// checkBatch checks the store, the batch policy and the keyed settings of a
// generator on segments.
func (p *plan) checkBatch(gc GeneratorConfig, stores map[string]StoreConfig) error {
	if err := p.checkStore(stores, ""); err != nil {
		return err
	}
	p.batch = batchPolicy(gc)
	if err := p.batch.Validate(); err != nil {
		return policyErr(p.path, err)
	}
	return p.checkKeyed(gc)
}

// segmentGen is a built segment generator.
type segmentGen struct {
	g     *segment.Generator
	codec codec.Codec
}

func (s *segmentGen) next() (string, error) {
	v, err := s.g.Next()
	if err != nil {
		return "", err
	}
	return s.codec.Encode(v)
}

func (s *segmentGen) nextInt() (int64, error) { return s.g.Next() }
func (s *segmentGen) stats() []segment.Stats  { return []segment.Stats{s.g.Stats()} }
func (s *segmentGen) lost(error) bool         { return false }
func (s *segmentGen) close() error            { return s.g.Close() }

// Segment returns the generator name of strategy segment, building it on first use:
// opening its store under ctx.
func (rt *Runtime) Segment(ctx context.Context, name string) (*segment.Generator, error) {
	b, err := builtAs[*segmentGen](ctx, rt, name, StrategySegment)
	if err != nil {
		return nil, err
	}
	return b.g, nil
}
