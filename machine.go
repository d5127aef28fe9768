package cosid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// This file holds what the strategies whose ids carry a machine id (snowflake,
// cosid-generator) share: a fixed machine id, with its state file, or one leased
// from a slot of the generator's store, and the snowflake.Generator built on it.

// machinePlan is a generator's machine id, checked: fixed, or leased, with the
// options of its snowflake.Generator.
type machinePlan struct {
	fixed     *int   // the fixed machine id; nil: leased from the store
	stateFile string // the absolute path of a fixed machine's state file, or ""
	opts      []snowflake.Option
}

// checkMachine checks the machine settings of gc, a generator of layout l: a fixed
// machine-id (and its state-file), or a store to lease one from, with slots,
// lease-ttl, tolerance and owner-key.
func checkMachine(p *plan, gc GeneratorConfig, stores map[string]StoreConfig, l snowflake.Layout) (machinePlan, error) {
	var m machinePlan
	if gc.MachineID != nil {
		if gc.Store != "" || gc.Slots != nil || gc.MachineIDs != nil || gc.LeaseTTL != nil || gc.Tolerance != nil || gc.OwnerKey != "" {
			return m, p.errorf("machine-id", "a fixed machine id takes no store, slots, machine-ids, lease-ttl, tolerance or owner-key")
		}
		id := 0 // offline, from-hostname is the host's to say, when the generator is opened
		if !p.offline || *gc.MachineID != MachineIDFromHostname {
			var err error
			if id, err = machineID(*gc.MachineID); err != nil {
				return m, p.errorf("machine-id", "%v", err)
			}
			if limit := 1 << l.MachineBits; id < 0 || id >= limit {
				from := ""
				if *gc.MachineID == MachineIDFromHostname {
					from = " (the host name's ordinal)"
				}
				return m, p.errorf("machine-id", "%d%s is not in 0–%d, the machines of %s", id, from, limit-1, plural(l.MachineBits, "machine bit"))
			}
		}
		m.fixed = &id
		if gc.StateFile != "" {
			if strings.HasSuffix(gc.StateFile, "/") || strings.HasSuffix(gc.StateFile, string(os.PathSeparator)) {
				return m, p.errorf("state-file", "%q names a directory; want a file in a directory the generator may write, such as /var/lib/cosid/%s.state", gc.StateFile, p.name)
			}
			// Relative to the configuration's directory, as the stores' files are.
			m.stateFile = gc.StateFile
			if !filepath.IsAbs(m.stateFile) {
				m.stateFile = filepath.Join(p.dir, m.stateFile)
			}
			if abs, err := filepath.Abs(m.stateFile); err == nil {
				m.stateFile = abs
			}
			m.opts = append(m.opts, snowflake.WithStateFile(m.stateFile))
		}
		return m, nil
	}
	if gc.StateFile != "" {
		return m, p.errorf("state-file", "only a fixed machine-id keeps a state file; a leased machine id keeps its last time in the store (its floor): remove state-file, or set machine-id")
	}
	if err := p.checkStore(stores, " (or set machine-id)"); err != nil {
		return m, err
	}
	if gc.LeaseTTL != nil && *gc.LeaseTTL < time.Millisecond {
		return m, p.errorf("lease-ttl", "%v; want a duration of at least 1ms, such as 1m (the default %v)", *gc.LeaseTTL, snowflake.DefaultLeaseTTL)
	}
	if gc.Tolerance != nil && *gc.Tolerance < 0 {
		return m, p.errorf("tolerance", "%v; want a duration ≥ 0, such as 1s (the default %v)", *gc.Tolerance, snowflake.DefaultTolerance)
	}
	if gc.OwnerKey != "" {
		if err := store.CheckKey(gc.OwnerKey); err != nil {
			return m, p.errorf("owner-key", "%v", err)
		}
		if strings.HasPrefix(gc.OwnerKey, OwnerKeyPrefix4x) {
			return m, p.errorf("owner-key", "%q: the prefix %q is reserved for the leases of cosid serve's 4.x API", gc.OwnerKey, OwnerKeyPrefix4x)
		}
	}
	m.opts = append(m.opts, snowflake.WithNamespace(p.key))
	if gc.MachineIDs != nil {
		lo, hi, err := checkMachineIDs(p, gc, l)
		if err != nil {
			return m, err
		}
		m.opts = append(m.opts, snowflake.WithLimit(hi-lo), snowflake.WithMachineBase(lo))
	}
	if gc.Slots != nil {
		if limit := 1 << l.MachineBits; *gc.Slots < 1 || *gc.Slots > limit {
			return m, p.errorf("slots", "%d is not in 1–%d, the machines of %s", *gc.Slots, limit, plural(l.MachineBits, "machine bit"))
		}
		m.opts = append(m.opts, snowflake.WithLimit(*gc.Slots))
	}
	if gc.LeaseTTL != nil {
		m.opts = append(m.opts, snowflake.WithLeaseTTL(*gc.LeaseTTL))
	}
	if gc.Tolerance != nil {
		m.opts = append(m.opts, snowflake.WithTolerance(*gc.Tolerance))
	}
	if gc.OwnerKey != "" {
		m.opts = append(m.opts, snowflake.WithOwnerKey(gc.OwnerKey))
	}
	return m, nil
}

// checkMachineIDs checks the machine-ids [lo, hi] of gc, a generator of layout l
// that leases its machine id, and returns them.
func checkMachineIDs(p *plan, gc GeneratorConfig, l snowflake.Layout) (lo, hi int, err error) {
	ids, limit := gc.MachineIDs, 1<<l.MachineBits
	switch {
	case gc.Slots != nil:
		return 0, 0, p.errorf("slots", "set with machine-ids, whose range sets the slots (hi − lo); remove slots")
	case len(ids) != 2:
		return 0, 0, p.errorf("machine-ids", "%d numbers; want two, [lo, hi]: the machine ids lo to hi−1, such as [0, 512]", len(ids))
	}
	lo, hi = ids[0], ids[1]
	switch {
	case lo < 0:
		return 0, 0, p.errorf("machine-ids", "[%d, %d]: lo %d is below 0", lo, hi, lo)
	case hi <= lo:
		return 0, 0, p.errorf("machine-ids", "[%d, %d]: hi must be above lo (hi is excluded: [%d, %d] is machine %[1]d alone)", lo, hi, lo, lo+1)
	case hi > limit:
		return 0, 0, p.errorf("machine-ids", "[%d, %d]: hi %d is past %d, the machines of %s", lo, hi, hi, limit, plural(l.MachineBits, "machine bit"))
	case hi-lo > store.MaxSlots:
		return 0, 0, p.errorf("machine-ids", "[%d, %d]: %d machine ids, over the %d slots a namespace may have", lo, hi, hi-lo, store.MaxSlots)
	}
	return lo, hi, nil
}

// ownFile returns the state file of a fixed machine: no two generators share one.
func (m machinePlan) ownFile() (setting, path string) { return "state-file", m.stateFile }

// build makes the snowflake.Generator of p, of layout l, on its machine: fixed, or
// leased from st under ctx. Its options are the plan's, then the runtime's logger
// and WithSnowflakeOptions's, then extra.
func (m machinePlan) build(ctx context.Context, rt *Runtime, p *plan, st store.RangeStore, l snowflake.Layout, extra ...snowflake.Option) (*snowflake.Generator, error) {
	opts := append(m.opts[:len(m.opts):len(m.opts)], snowflake.WithLogger(rt.o.logger))
	if f := rt.o.snowOpts; f != nil {
		opts = append(opts, f(p.name, p.store)...)
	}
	opts = append(opts, extra...)
	if m.fixed != nil {
		return snowflake.NewFixed(*m.fixed, l, opts...)
	}
	leases, ok := st.(store.SlotLeaseStore)
	if !ok {
		return nil, configErr(p.errorf("store", "store %q cannot lease machine ids; use one that can, or set machine-id", p.store))
	}
	g, err := snowflake.New(ctx, leases, l, opts...)
	if errors.Is(err, store.ErrNamespaceConflict) {
		// Not for a retry to mend: the store keeps the namespace's first settings (L4).
		return nil, fmt.Errorf("%w; the store keeps the slot count and tolerance of a namespace once set: set %s.machine-ids (or slots) and tolerance back, or give the generator a new name", err, p.path)
	}
	return g, err
}

// machineID resolves a configured machine id: MachineIDFromHostname becomes the
// host name's ordinal.
func machineID(m MachineID) (int, error) {
	if m != MachineIDFromHostname {
		return int(m), nil
	}
	host := os.Getenv("HOSTNAME")
	if host == "" {
		var err error
		if host, err = os.Hostname(); err != nil {
			return 0, fmt.Errorf("from-hostname: no host name: %w", err)
		}
	}
	i := strings.LastIndexByte(host, '-')
	n, err := strconv.Atoi(host[i+1:])
	if i < 0 || err != nil || n < 0 || host[i+1] == '+' {
		return 0, fmt.Errorf("from-hostname: host name %q has no ordinal, a number after its last \"-\" (as in web-3)", host)
	}
	return n, nil
}

// machineLayouter is a strategy whose ids carry a machine id, in its bit layout.
type machineLayouter interface {
	machineLayout() snowflake.Layout
}

func (s *snowflakePlan) machineLayout() snowflake.Layout      { return s.layout }
func (c *cosIDGeneratorPlan) machineLayout() snowflake.Layout { return c.layout }

// MachineLayout returns the bit layout of the generator name when its ids carry a
// machine id (a snowflake or a cosid-generator), checking the generator as Validate
// does, without I/O; ok is false for another strategy. It is what a check of
// several regions' configurations compares (cosid config check --fleet).
func (c Config) MachineLayout(name string) (l snowflake.Layout, ok bool, err error) {
	p, err := c.plan(name)
	if err != nil {
		return l, false, err
	}
	m, ok := p.impl.(machineLayouter)
	if !ok {
		return l, false, nil
	}
	return m.machineLayout(), true, nil
}
