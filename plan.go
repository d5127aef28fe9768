package cosid

import (
	"errors"
	"fmt"
	"math"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// plan is a generator's configuration checked and turned into the values its
// constructor takes: everything about it that can be known without I/O. What
// depends on its strategy is in impl, declared in the strategy's file.
type plan struct {
	name, path, key string
	dir             string       // the configuration's Dir: relative file names are read from it
	offline         bool         // checked by Config.Offline: no host name is resolved
	def             *strategyDef // its strategy
	impl            strategyPlan // its strategy's settings, checked
	store           string
	leases          bool // it leases a slot of its store: its store must lease

	keyed     bool // a template: a sequence per key, at key/{key}
	maxLive   int
	idleClose time.Duration
	maxKeys   int64 // 0: no bound
}

// Validate checks c without I/O, the same checks as Open: the namespace, every
// store's type and settings, every generator's settings, codec and store reference,
// that no generator gives up on a reservation before its store's timeout, and the
// serve section. What it cannot know without I/O (whether a store is reachable, its
// tables, free slots) is not a configuration error: the generators on such a store
// answer ErrUnavailable. The error wraps ErrConfig and names the YAML path.
func (c Config) Validate() error {
	_, err := c.check()
	return err
}

// check validates c and returns the plans of its generators, sorted by name. Its
// error is at its place in c's file (locate).
func (c Config) check() ([]*plan, error) {
	plans, err := c.checkAll()
	return plans, c.locate(err)
}

func (c Config) checkAll() ([]*plan, error) {
	if err := store.CheckKey(c.namespace()); err != nil {
		return nil, configErr(fmt.Errorf("cosid.namespace: %w", err))
	}
	facts := map[string]store.Facts{} // what each store's type tells of its settings
	for _, name := range sortedKeys(c.Stores) {
		f, err := checkStore(name, c.Stores[name], c.Dir, c.offline)
		if err != nil {
			return nil, err
		}
		facts[name] = f
	}
	plans := make([]*plan, 0, len(c.Generators))
	files := map[string]string{} // a generator's own file: the generator's name
	for _, name := range sortedKeys(c.Generators) {
		p, err := c.plan(name)
		if err != nil {
			return nil, err
		}
		if f, ok := p.impl.(filer); ok {
			if setting, path := f.ownFile(); path != "" {
				if other, taken := files[path]; taken {
					return nil, configErr(p.errorf(setting, "%s is also the %s of generator %q: each generator writes its own; give this one another", path, setting, other))
				}
				files[path] = name
			}
		}
		if err := checkTimeout(p, c.Stores[p.store].Type, facts[p.store]); err != nil {
			return nil, configErr(err)
		}
		if p.leases && !facts[p.store].Leases {
			return nil, configErr(p.errorf("store", "store %q cannot lease machine ids; use one that can, or set machine-id", p.store))
		}
		plans = append(plans, p)
	}
	if err := c.Serve.check(); err != nil {
		return nil, configErr(err)
	}
	if err := c.Serve.checkCompat(c.Generators); err != nil {
		return nil, configErr(err)
	}
	if s := c.Serve.Store; s != "" {
		if _, ok := c.Stores[s]; !ok {
			return nil, configErr(fmt.Errorf("cosid.serve.store: no store %q; %s", s, oneOfNames(s, sortedKeys(c.Stores))))
		}
		if !facts[s].Leases {
			return nil, configErr(fmt.Errorf("cosid.serve.store: store %q (type %s) cannot lease slots, which the served store API offers; want a store that can",
				s, c.Stores[s].Type))
		}
	}
	return plans, nil
}

// checkTimeout checks that the callers of a generator that reserves never give up
// on a reservation that its store, of type typ and facts f, may still finish.
func checkTimeout(p *plan, typ string, f store.Facts) error {
	r, ok := p.impl.(reserver)
	if !ok || f.Timeout <= r.batchPolicy().ReserveTimeout {
		return nil
	}
	setting := "cosid.stores." + p.store + ".timeout"
	if !f.TimeoutSet {
		setting += ", unset: the default of type " + typ
	}
	return p.errorf("reserve-timeout", "reserve-timeout %v is below the store's timeout %v (%s): a caller would give up on reservations the store may still finish; raise reserve-timeout or lower the store's timeout",
		r.batchPolicy().ReserveTimeout, f.Timeout, setting)
}

// planner finds the plan of a generator by name: a Config, which checks it, or a
// Runtime, which holds it. The lookups that need no store (Codec, GroupedCodec,
// Decode) take one, so that a Config and its Runtime answer them alike.
type planner interface {
	plan(name string) (*plan, error)
}

func (c Config) namespace() string {
	if c.Namespace == "" {
		return DefaultNamespace
	}
	return c.Namespace
}

// plan checks the generator name of c.
func (c Config) plan(name string) (*plan, error) {
	gc, ok := c.Generators[name]
	if !ok {
		return nil, unknownName(ErrUnknownGenerator, name, sortedKeys(c.Generators))
	}
	p := &plan{name: name, path: "cosid.generators." + name, key: c.namespace() + "/" + name, store: gc.Store, dir: c.Dir, offline: c.offline}
	if err := p.check(gc, c.Stores); err != nil {
		return nil, c.locate(configErr(err))
	}
	return p, nil
}

func (p *plan) errorf(key, format string, args ...any) error {
	at := p.path
	if key != "" {
		at = strictyaml.Join(p.path, key)
	}
	return fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...))
}

func (p *plan) check(gc GeneratorConfig, stores map[string]StoreConfig) error {
	if err := store.CheckKey(p.key); err != nil {
		return p.errorf("", "the generator's key: %v", err)
	}
	p.def = strategyOf(gc.Strategy)
	switch {
	case gc.Strategy == "":
		return p.errorf("strategy", "missing; want one of: %s", strategyNames())
	case p.def == nil:
		return p.errorf("strategy", "unknown strategy %q; %s", gc.Strategy, strictyaml.OneOf(string(gc.Strategy), strategyList()))
	}
	if gc.Keyed && !slices.Contains(p.def.settings, "keyed") {
		return p.errorf("keyed", "a %s generator cannot be keyed: only %s generators keep a sequence per key; remove keyed", gc.Strategy, keyableNames())
	}
	if key := foreignSetting(gc, p.def.settings); key != "" {
		return p.errorf(key, "not a setting of strategy %s; it takes: %s", gc.Strategy, strings.Join(p.def.settings, ", "))
	}
	if err := p.checkKeyed(gc); err != nil {
		return err
	}
	var err error
	if p.impl, err = p.def.plan(p, gc, stores); err != nil {
		return err
	}
	p.leases = p.def.leases != nil && p.def.leases(gc)
	return p.checkKeyLength()
}

// strategyNames lists the strategies for an error.
func strategyNames() string { return strings.Join(strategyList(), ", ") }

func strategyList() []string {
	names := make([]string, len(strategyDefs))
	for i, d := range strategyDefs {
		names[i] = string(d.name)
	}
	return names
}

// keyableNames lists the strategies that take the setting keyed, for an error.
func keyableNames() string {
	var names []string
	for _, d := range strategyDefs {
		if slices.Contains(d.settings, "keyed") {
			names = append(names, string(d.name))
		}
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// checkStore checks that the generator names a configured store; hint ends the error.
func (p *plan) checkStore(stores map[string]StoreConfig, hint string) error {
	if p.store == "" {
		return p.errorf("store", "missing; want one of the configured stores: %s%s", quotedList(sortedKeys(stores)), hint)
	}
	if _, ok := stores[p.store]; !ok {
		return p.errorf("store", "no store %q; %s%s", p.store, oneOfNames(p.store, sortedKeys(stores)), hint)
	}
	return nil
}

// foreignSetting returns the YAML key of a setting that gc sets and its strategy does
// not take, or "".
func foreignSetting(gc GeneratorConfig, allowed []string) string {
	v := reflect.ValueOf(gc)
	for i := range v.NumField() {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		if key == "strategy" || v.Field(i).IsZero() {
			continue
		}
		found := false
		for _, a := range allowed {
			found = found || a == key
		}
		if !found {
			return key
		}
	}
	return ""
}

// policyFields maps the Go fields of segment's policies to their YAML keys.
var policyFields = map[string]string{
	"Step": "step", "InitialOffset": "initial-offset", "Lookahead": "lookahead", "MaxBatch": "max-batch",
	"ReserveTimeout": "reserve-timeout", "RangeTTL": "range-ttl", "Prewarm": "prewarm", "SealAfter": "seal-after",
}

// policyErr turns a segment.PolicyError into an error at the field's YAML path.
func policyErr(path string, err error) error {
	var pe *segment.PolicyError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s.%s: %s %s", path, policyFields[pe.Field], policyFields[pe.Field], pe.Reason)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// check checks the 4.x switch and the limits of the serve section.
func (s ServeConfig) check() error {
	l := s.Limits
	switch {
	case s.Cosid4x && s.Store == "":
		return errors.New("cosid.serve.cosid4x: the 4.x API serves the store of cosid.serve.store, which is not set")
	case l.MaxReserve < 0:
		return fmt.Errorf("cosid.serve.limits.max-reserve: %d, want ≥ 1 (or leave it out for 1048576)", l.MaxReserve)
	case l.MaxSlots < 0 || l.MaxSlots > store.MaxSlots:
		return fmt.Errorf("cosid.serve.limits.max-slots: %d, want 1–%d (or leave it out for 65536)", l.MaxSlots, store.MaxSlots)
	case l.MaxLeaseTTL < 0:
		return fmt.Errorf("cosid.serve.limits.max-lease-ttl: %v, want a positive duration (or leave it out for 10m)", l.MaxLeaseTTL)
	case l.MaxStreams < 0:
		return fmt.Errorf("cosid.serve.limits.max-streams: %d, want ≥ 1 (or leave it out for 256)", l.MaxStreams)
	case l.StreamIdle < 0 || l.StreamIdle > 0 && l.StreamIdle < time.Second:
		// Under a second, a pause of a healthy client (a collection, a full
		// socket buffer) would cut its stream.
		return fmt.Errorf("cosid.serve.limits.stream-idle: %v, want 1s or more (or leave it out for 30s)", l.StreamIdle)
	}
	if err := l.Rate.check(); err != nil {
		return err
	}
	return checkAddr("cosid.serve.grpc-addr", s.GRPCAddr)
}

// checkAddr refuses an address a listener cannot bind: want host:port, the host
// possibly empty (every interface), the port a number up to 65535. Empty is unset.
func checkAddr(path, addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		if n, perr := strconv.Atoi(port); perr != nil || n < 0 || n > 65535 {
			err = fmt.Errorf("port %q is not a number from 0 to 65535", port)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %q: %v; want host:port, such as 127.0.0.1:8687 or :8687", path, addr, err)
	}
	return nil
}

// checkCompat checks the generators that Leaf's and tinyid's routes serve.
func (s ServeConfig) checkCompat(gens map[string]GeneratorConfig) error {
	check := func(path, name string, keyed bool, strategy Strategy) error {
		if name == "" {
			return nil
		}
		gc, ok := gens[name]
		switch {
		case !ok:
			return fmt.Errorf("%s: no generator %q; want one of: %s", path, name, quotedList(sortedKeys(gens)))
		case keyed && (gc.Strategy != StrategySegment || !gc.Keyed):
			return fmt.Errorf("%s: generator %q is not a keyed segment generator (strategy: segment, keyed: true), whose keys the routes name", path, name)
		case !keyed && gc.Strategy != strategy:
			return fmt.Errorf("%s: generator %q is a %s generator; want a %s generator", path, name, gc.Strategy, strategy)
		}
		return nil
	}
	return errors.Join(
		check("cosid.serve.leaf.segment", s.Leaf.Segment, true, StrategySegment),
		check("cosid.serve.leaf.snowflake", s.Leaf.Snowflake, false, StrategySnowflake),
		check("cosid.serve.tinyid.template", s.Tinyid.Template, true, StrategySegment))
}

// check checks cosid.serve.limits.rate.
func (r ServeRate) check() error {
	const path = "cosid.serve.limits.rate"
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(r.IDsPerSecond):
		return fmt.Errorf("%s.ids-per-second: %v, want a number ≥ 0 (0 or left out: no limit)", path, r.IDsPerSecond)
	case bad(r.NewKeysPerSecond):
		return fmt.Errorf("%s.new-keys-per-second: %v, want a number ≥ 0 (0 or left out: no limit)", path, r.NewKeysPerSecond)
	case r.Burst < 0:
		return fmt.Errorf("%s.burst: %d, want a number ≥ 0 (0 or left out: one second's worth of ids-per-second)", path, r.Burst)
	case r.Burst > 0 && r.IDsPerSecond == 0:
		return fmt.Errorf("%s.burst: %d without ids-per-second, which it is the burst of; set ids-per-second, or remove burst", path, r.Burst)
	}
	return nil
}
