package cosid

import (
	"context"
	"errors"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// build makes the generator that p plans, on its store, which is open.
func (rt *Runtime) build(ctx context.Context, p *plan) (*built, error) {
	var st store.RangeStore
	if p.store != "" {
		b, err := rt.stores[p.store].get(ctx)
		if err != nil {
			return nil, err
		}
		st = b.st
	}
	b, err := p.def.build(ctx, rt, p, st)
	var pe *segment.PolicyError
	if errors.As(err, &pe) {
		return nil, configErr(policyErr(p.path, err))
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
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
