package cosid

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"go.yaml.in/yaml/v3"
)

// build opens the generator that p plans, on the runtime's stores.
func (rt *Runtime) build(ctx context.Context, p *plan, o runtimeOptions) (*generator, error) {
	g := &generator{name: p.name, strategy: p.strategy, codec: p.codec, grouped: p.grouped}
	var err error
	switch {
	case p.strategy == strategySegment:
		g.seg, err = segment.New(rt.stores[p.store], p.key, p.batch, segment.WithLogger(o.logger))
		if err == nil {
			rt.closers = append(rt.closers, g.seg)
		}
	case p.strategy == strategyPeriodic:
		g.per, err = segment.NewPeriodic(rt.stores[p.store], p.key, p.period, p.loc, p.batch, p.periodic, segment.WithLogger(o.logger))
		if err == nil {
			rt.closers = append(rt.closers, g.per)
		}
	case p.machineID != nil:
		g.snow, err = snowflake.NewFixed(*p.machineID, p.layout, snowflake.WithLogger(o.logger))
		if err == nil {
			rt.closers = append(rt.closers, g.snow)
		}
	default:
		leases, ok := rt.stores[p.store].(store.SlotLeaseStore)
		if !ok {
			return nil, configErr(p.errorf("store", "store %q cannot lease machine ids; use one that can, or set machine-id", p.store))
		}
		g.snow, err = snowflake.New(ctx, leases, p.layout, append(p.snowOpts, snowflake.WithLogger(o.logger))...)
		if err == nil {
			rt.closers = append(rt.closers, g.snow)
		}
	}
	if err != nil {
		return nil, configErr(policyErr(p.path, err))
	}
	return g, nil
}

func openStore(ctx context.Context, name string, sc StoreConfig, logger *slog.Logger) (store.RangeStore, error) {
	path := "cosid.stores." + name
	open, ok := store.Lookup(sc.Type)
	if !ok {
		return nil, configErr(unknownType(path, sc.Type))
	}
	node, err := sc.settingsNode()
	if err != nil {
		return nil, configErr(fmt.Errorf("%s: %w", path, err))
	}
	st, err := open(ctx, store.Spec{Name: name, Path: path, Logger: logger, Decode: func(v any) error {
		return decodeStrict(node, path, v)
	}})
	if err != nil && !strings.Contains(err.Error(), path) {
		err = fmt.Errorf("%s: %w", path, err) // an opener that did not name the path
	}
	if err != nil {
		return nil, configErr(err)
	}
	return st, nil
}

func unknownType(path, typ string) error {
	return fmt.Errorf("%s.type: unknown store type %q; this binary has: %s (another type needs its package imported)",
		path, typ, typeList())
}

func typeList() string { return quotedList(store.Types()) }

func decodeStrict(node *yaml.Node, path string, v any) error {
	return strictyaml.Decode(node, path, v)
}
