package cosid

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// snowflakeDef is the strategy snowflake: a snowflake.Generator whose int64 ids
// have the generator's Codec, on a fixed machine id or one leased from its store.
var snowflakeDef = strategyDef{
	name: StrategySnowflake,
	settings: []string{"store", "machine-id", "slots", "layout", "epoch", "unit", "timestamp-bits", "machine-bits",
		"sequence-bits", "lease-ttl", "tolerance", "owner-key", "codec"},
	check: func(p *plan, gc GeneratorConfig, stores map[string]StoreConfig) error {
		return p.checkSnowflake(gc, stores)
	},
	build: buildSnowflake,
	take: func(ctx context.Context, g *generator, _ string, n int64) ([]string, error) {
		texts := make([]string, 0, n)
		for range n {
			text, err := g.next(ctx)
			if err != nil {
				return nil, err
			}
			texts = append(texts, text)
		}
		return texts, nil
	},
	decode: func(p *plan, text string) (Decoded, error) {
		v, err := p.codec.Decode(text)
		if err != nil {
			return Decoded{}, fmt.Errorf("cosid: generator %q: %w", p.name, err)
		}
		s := p.layout.Parse(v)
		if back, err := p.layout.Compose(s); err != nil || back != v {
			return Decoded{}, fmt.Errorf("cosid: generator %q: %d is not an id of its layout", p.name, v)
		}
		s.Time = s.Time.In(p.zone)
		return Decoded{Value: v, Snowflake: &s}, nil
	},
}

func buildSnowflake(ctx context.Context, rt *Runtime, p *plan, st store.RangeStore) (built, error) {
	opts := append(p.snowOpts[:len(p.snowOpts):len(p.snowOpts)], snowflake.WithLogger(rt.o.logger))
	if f := rt.o.snowOpts; f != nil {
		opts = append(opts, f(p.name, p.store)...)
	}
	var (
		g   *snowflake.Generator
		err error
	)
	if p.machineID != nil {
		g, err = snowflake.NewFixed(*p.machineID, p.layout, opts...)
	} else {
		leases, ok := st.(store.SlotLeaseStore)
		if !ok {
			return nil, configErr(p.errorf("store", "store %q cannot lease machine ids; use one that can, or set machine-id", p.store))
		}
		g, err = snowflake.New(ctx, leases, p.layout, opts...)
	}
	if err != nil {
		return nil, err
	}
	return &snowflakeGen{g: g, codec: p.codec}, nil
}

func (p *plan) checkSnowflake(gc GeneratorConfig, stores map[string]StoreConfig) error {
	var err error
	if p.layout, err = snowflakeLayout(p.path, gc); err != nil {
		return err
	}
	if p.codec, err = buildCodec(p.path, gc.Codec, &p.layout); err != nil {
		return err
	}
	p.zone = zoneOf(gc.Codec)
	if gc.MachineID != nil {
		if gc.Store != "" || gc.Slots != nil || gc.LeaseTTL != nil || gc.Tolerance != nil || gc.OwnerKey != "" {
			return p.errorf("machine-id", "a fixed machine id takes no store, slots, lease-ttl, tolerance or owner-key")
		}
		id, err := machineID(*gc.MachineID)
		if err != nil {
			return p.errorf("machine-id", "%v", err)
		}
		if limit := 1 << p.layout.MachineBits; id < 0 || id >= limit {
			from := ""
			if *gc.MachineID == MachineIDFromHostname {
				from = " (the host name's ordinal)"
			}
			return p.errorf("machine-id", "%d%s is not in 0–%d, the machines of %s", id, from, limit-1, plural(p.layout.MachineBits, "machine bit"))
		}
		p.machineID = &id
		return nil
	}
	if err := p.checkStore(stores, " (or set machine-id)"); err != nil {
		return err
	}
	if gc.LeaseTTL != nil && *gc.LeaseTTL < time.Millisecond {
		return p.errorf("lease-ttl", "%v; want a duration of at least 1ms, such as 1m (the default %v)", *gc.LeaseTTL, snowflake.DefaultLeaseTTL)
	}
	if gc.Tolerance != nil && *gc.Tolerance < 0 {
		return p.errorf("tolerance", "%v; want a duration ≥ 0, such as 1s (the default %v)", *gc.Tolerance, snowflake.DefaultTolerance)
	}
	if gc.OwnerKey != "" {
		if err := store.CheckKey(gc.OwnerKey); err != nil {
			return p.errorf("owner-key", "%v", err)
		}
		if strings.HasPrefix(gc.OwnerKey, OwnerKeyPrefix4x) {
			return p.errorf("owner-key", "%q: the prefix %q is reserved for the leases of cosid serve's 4.x API", gc.OwnerKey, OwnerKeyPrefix4x)
		}
	}
	p.snowOpts = append(p.snowOpts, snowflake.WithNamespace(p.key))
	if gc.Slots != nil {
		if limit := 1 << p.layout.MachineBits; *gc.Slots < 1 || *gc.Slots > limit {
			return p.errorf("slots", "%d is not in 1–%d, the machines of %s", *gc.Slots, limit, plural(p.layout.MachineBits, "machine bit"))
		}
		p.snowOpts = append(p.snowOpts, snowflake.WithLimit(*gc.Slots))
	}
	if gc.LeaseTTL != nil {
		p.snowOpts = append(p.snowOpts, snowflake.WithLeaseTTL(*gc.LeaseTTL))
	}
	if gc.Tolerance != nil {
		p.snowOpts = append(p.snowOpts, snowflake.WithTolerance(*gc.Tolerance))
	}
	if gc.OwnerKey != "" {
		p.snowOpts = append(p.snowOpts, snowflake.WithOwnerKey(gc.OwnerKey))
	}
	return nil
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

func (s *snowflakeGen) nextInt() (int64, error) { return s.g.Next() }
func (s *snowflakeGen) stats() []segment.Stats  { return nil }

// lost drops a generator that lost its lease, so that the next call leases a slot
// again.
func (s *snowflakeGen) lost(err error) bool { return errors.Is(err, snowflake.ErrLeaseLost) }
func (s *snowflakeGen) close() error        { return s.g.Close() }

// Snowflake returns the generator name of strategy snowflake, building it (and
// leasing its slot, under ctx) on first use. After it loses its lease, its Next
// fails with snowflake.ErrLeaseLost; Runtime.Next then builds a new one, and so
// does the next call of Snowflake.
func (rt *Runtime) Snowflake(ctx context.Context, name string) (*snowflake.Generator, error) {
	b, err := builtAs[*snowflakeGen](ctx, rt, name, StrategySnowflake)
	if err != nil {
		return nil, err
	}
	return b.g, nil
}

// Leases reports whether the generator leases its machine id from its store: a
// snowflake without machine-id.
func (gc GeneratorConfig) Leases() bool {
	return gc.Strategy == StrategySnowflake && gc.MachineID == nil
}

// leases reports whether p's generator leases its machine id from its store.
func (p *plan) leases() bool { return p.strategy == StrategySnowflake && p.machineID == nil }

// Lease returns the slot lease of the Snowflake generator name, once it is built
// and leases its machine id. It builds nothing and does no I/O.
func (rt *Runtime) Lease(name string) (store.Lease, bool) {
	if g := rt.gens[name]; g != nil {
		if b := g.built.v.Load(); b != nil {
			if s, ok := (*b).(*snowflakeGen); ok {
				return s.g.Lease()
			}
		}
	}
	return store.Lease{}, false
}
