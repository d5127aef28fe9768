package cosid

import (
	"context"
	"errors"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// build makes the generator that p plans, on its store, which is open.
func (rt *Runtime) build(ctx context.Context, p *plan) (*parts, error) {
	logger := rt.o.logger
	var st store.RangeStore
	if p.store != "" {
		b, err := rt.stores[p.store].get(ctx)
		if err != nil {
			return nil, err
		}
		st = b.st
	}
	var (
		g   parts
		err error
	)
	segOpts := []segment.Option{segment.WithLogger(logger)}
	if f := rt.o.segOpts; f != nil && p.strategy != strategySnowflake {
		segOpts = append(segOpts, f(p.name, p.store)...)
	}
	snowOpts := append(p.snowOpts[:len(p.snowOpts):len(p.snowOpts)], snowflake.WithLogger(logger))
	if f := rt.o.snowOpts; f != nil && p.strategy == strategySnowflake {
		snowOpts = append(snowOpts, f(p.name, p.store)...)
	}
	switch {
	case p.strategy == strategySegment:
		g.seg, err = segment.New(st, p.key, p.batch, segOpts...)
	case p.strategy == strategyPeriodic:
		g.per, err = segment.NewPeriodic(st, p.key, p.period, p.loc, p.batch, p.periodic, segOpts...)
	case p.machineID != nil:
		g.snow, err = snowflake.NewFixed(*p.machineID, p.layout, snowOpts...)
	default:
		leases, ok := st.(store.SlotLeaseStore)
		if !ok {
			return nil, configErr(p.errorf("store", "store %q cannot lease machine ids; use one that can, or set machine-id", p.store))
		}
		g.snow, err = snowflake.New(ctx, leases, p.layout, snowOpts...)
	}
	var pe *segment.PolicyError
	if errors.As(err, &pe) {
		return nil, configErr(policyErr(p.path, err))
	}
	if err != nil {
		return nil, err
	}
	return &g, nil
}
