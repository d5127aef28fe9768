package cosid

import (
	"context"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// WithStoreWrapper has the runtime hand out wrap(name, typ, st) instead of each store
// st it opens, where name and typ are the store's name and type in the
// configuration: its generators and Store use what wrap returns, and Close closes
// it. It is how tracing reaches the store calls of a configuration. The store wrap
// returns must be a store.SlotLeaseStore or a store.Admin where st is one, or the
// generators that lease slots on it cannot.
func WithStoreWrapper(wrap func(name, typ string, st store.RangeStore) store.RangeStore) Option {
	return func(o *runtimeOptions) { o.wrap = wrap }
}

// openWrapped opens the store name of sc, as openStore does, and wraps it with the
// runtime's WithStoreWrapper.
func (o *runtimeOptions) openWrapped(ctx context.Context, name string, sc StoreConfig, dir string) (*storeBox, error) {
	b, err := openStore(ctx, name, sc, dir, o.logger)
	if err != nil || o.wrap == nil {
		return b, err
	}
	return &storeBox{st: o.wrap(name, sc.Type, b.st)}, nil
}

// Layout returns the bit layout of the Snowflake generator name, as configured; ok
// is false for another strategy or an unknown name. It builds nothing: a metric of
// the time a layout has left reads it at every scrape.
func (rt *Runtime) Layout(name string) (l snowflake.Layout, ok bool) {
	g := rt.gens[name]
	if g == nil || g.plan.strategy != StrategySnowflake {
		return snowflake.Layout{}, false
	}
	return g.plan.layout, true
}

// Period returns the period and zone of the periodic-segment generator name, as
// configured; ok is false for another strategy or an unknown name. It builds
// nothing.
func (rt *Runtime) Period(name string) (p segment.Period, loc *time.Location, ok bool) {
	g := rt.gens[name]
	if g == nil || g.plan.strategy != StrategyPeriodic {
		return 0, nil, false
	}
	return g.plan.period, g.plan.loc, true
}
