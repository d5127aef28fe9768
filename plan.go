package cosid

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// policyFields maps the Go fields of segment's policies to their YAML keys.
var policyFields = map[string]string{
	"Step": "step", "InitialOffset": "initial-offset", "Lookahead": "lookahead", "MaxBatch": "max-batch",
	"ReserveTimeout": "reserve-timeout", "RangeTTL": "range-ttl", "Prewarm": "prewarm", "SealAfter": "seal-after",
}

// plan is a generator's configuration checked and turned into the values its
// constructor takes: everything about it that can be known without I/O.
type plan struct {
	name, path, key string
	strategy        Strategy
	def             *strategyDef
	store           string

	batch    segment.BatchPolicy
	period   segment.Period
	loc      *time.Location
	periodic segment.PeriodicPolicy

	layout    snowflake.Layout
	zone      *time.Location // of the friendly item, or UTC: the zone of a decoded time
	machineID *int
	snowOpts  []snowflake.Option

	codec   codec.Codec        // segment and snowflake
	grouped codec.GroupedCodec // periodic-segment

	keyed     bool // a template: a sequence per key, at key/{key}
	maxLive   int
	idleClose time.Duration
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

// check validates c and returns the plans of its generators, sorted by name.
func (c Config) check() ([]*plan, error) {
	if err := store.CheckKey(c.namespace()); err != nil {
		return nil, configErr(fmt.Errorf("cosid.namespace: %w", err))
	}
	facts := map[string]store.Facts{} // what each store's type tells of its settings
	for _, name := range sortedKeys(c.Stores) {
		f, err := checkStore(name, c.Stores[name], c.Dir)
		if err != nil {
			return nil, err
		}
		facts[name] = f
	}
	plans := make([]*plan, 0, len(c.Generators))
	for _, name := range sortedKeys(c.Generators) {
		p, err := c.plan(name)
		if err != nil {
			return nil, err
		}
		if err := checkTimeout(p, c.Stores[p.store].Type, facts[p.store]); err != nil {
			return nil, configErr(err)
		}
		if p.strategy == StrategySnowflake && p.machineID == nil && !facts[p.store].Leases {
			return nil, configErr(p.errorf("store", "store %q cannot lease machine ids; use one that can, or set machine-id", p.store))
		}
		plans = append(plans, p)
	}
	if err := c.Serve.check(); err != nil {
		return nil, configErr(err)
	}
	if s := c.Serve.Store; s != "" {
		if _, ok := c.Stores[s]; !ok {
			return nil, configErr(fmt.Errorf("cosid.serve.store: no store %q; want one of: %s", s, quotedList(sortedKeys(c.Stores))))
		}
		if !facts[s].Leases {
			return nil, configErr(fmt.Errorf("cosid.serve.store: store %q (type %s) cannot lease slots, which the served store API offers; want a store that can",
				s, c.Stores[s].Type))
		}
	}
	return plans, nil
}

// checkTimeout checks that a segment's callers never give up on a reservation that
// its store, of type typ and facts f, may still finish.
func checkTimeout(p *plan, typ string, f store.Facts) error {
	if p.strategy == StrategySnowflake || f.Timeout <= p.batch.ReserveTimeout {
		return nil
	}
	setting := "cosid.stores." + p.store + ".timeout"
	if !f.TimeoutSet {
		setting += ", unset: the default of type " + typ
	}
	return p.errorf("reserve-timeout", "reserve-timeout %v is below the store's timeout %v (%s): a caller would give up on reservations the store may still finish; raise reserve-timeout or lower the store's timeout",
		p.batch.ReserveTimeout, f.Timeout, setting)
}

// Codec returns the text form of the segment or snowflake generator name, without
// opening anything.
func (c Config) Codec(name string) (codec.Codec, error) { return codecOf(c, name) }

// GroupedCodec returns the text form of the periodic-segment generator name, without
// opening anything.
func (c Config) GroupedCodec(name string) (codec.GroupedCodec, error) { return groupedCodecOf(c, name) }

// planner finds the plan of a generator by name: a Config, which checks it, or a
// Runtime, which holds it. The lookups that need no store (Codec, GroupedCodec,
// Decode) take one, so that a Config and its Runtime answer them alike.
type planner interface {
	plan(name string) (*plan, error)
}

func codecOf(ps planner, name string) (codec.Codec, error) {
	p, err := ps.plan(name)
	if err != nil {
		return nil, err
	}
	if p.codec == nil {
		return nil, fmt.Errorf("cosid: %w: %q is a %s generator; its ids have a GroupedCodec", ErrUnknownGenerator, name, p.strategy)
	}
	return p.codec, nil
}

func groupedCodecOf(ps planner, name string) (codec.GroupedCodec, error) {
	p, err := ps.plan(name)
	if err != nil {
		return nil, err
	}
	if p.grouped == nil {
		return nil, fmt.Errorf("cosid: %w: %q is a %s generator, not a periodic-segment one", ErrUnknownGenerator, name, p.strategy)
	}
	return p.grouped, nil
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
		return nil, fmt.Errorf("cosid: %w %q; configured: %s", ErrUnknownGenerator, name, quotedList(sortedKeys(c.Generators)))
	}
	p := &plan{name: name, path: "cosid.generators." + name, key: c.namespace() + "/" + name, strategy: gc.Strategy, store: gc.Store}
	if err := p.check(gc, c.Stores); err != nil {
		return nil, configErr(err)
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
		return p.errorf("strategy", "unknown strategy %q; want one of: %s", gc.Strategy, strategyNames())
	}
	if gc.Keyed && p.def.keyed == nil {
		return p.errorf("keyed", "a %s generator cannot be keyed: only segment and periodic-segment generators keep a sequence per key; remove keyed", gc.Strategy)
	}
	if key := foreignSetting(gc, p.def.settings); key != "" {
		return p.errorf(key, "not a setting of strategy %s; it takes: %s", gc.Strategy, strings.Join(p.def.settings, ", "))
	}
	return p.def.check(p, gc, stores)
}

// strategyNames lists the strategies for an error.
func strategyNames() string {
	names := make([]string, len(strategyDefs))
	for i, d := range strategyDefs {
		names[i] = string(d.name)
	}
	return strings.Join(names, ", ")
}

// checkStore checks that the generator names a configured store; hint ends the error.
func (p *plan) checkStore(stores map[string]StoreConfig, hint string) error {
	names := quotedList(sortedKeys(stores))
	if p.store == "" {
		return p.errorf("store", "missing; want one of the configured stores: %s%s", names, hint)
	}
	if _, ok := stores[p.store]; !ok {
		return p.errorf("store", "no store %q; want one of: %s%s", p.store, names, hint)
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

// policyErr turns a segment.PolicyError into an error at the field's YAML path.
func policyErr(path string, err error) error {
	var pe *segment.PolicyError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s.%s: %s %s", path, policyFields[pe.Field], policyFields[pe.Field], pe.Reason)
	}
	return fmt.Errorf("%s: %w", path, err)
}

func snowflakeLayout(path string, gc GeneratorConfig) (snowflake.Layout, error) {
	var l snowflake.Layout
	switch gc.Layout {
	case "", "default":
		l = snowflake.DefaultLayout()
	case "javascript":
		l = snowflake.JavaScriptLayout()
	default:
		return l, fmt.Errorf("%s.layout: unknown layout %q; want default or javascript", path, gc.Layout)
	}
	if gc.Epoch != "" {
		epoch, err := parseEpoch(gc.Epoch)
		if err != nil {
			return l, fmt.Errorf("%s.epoch: %q is not a date like 2026-01-01 or a time like 2026-01-01T00:00:00Z", path, gc.Epoch)
		}
		if epoch.After(time.Now()) {
			return l, fmt.Errorf("%s.epoch: %s is in the future; the ids' time counts from the epoch, which must have passed", path, gc.Epoch)
		}
		l.Epoch = epoch
	}
	if gc.Unit != nil {
		l.Unit = *gc.Unit
	}
	for _, f := range []struct {
		dst *int
		src *int
	}{{&l.TimestampBits, gc.TimestampBits}, {&l.MachineBits, gc.MachineBits}, {&l.SequenceBits, gc.SequenceBits}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("%s: layout: %w", path, err)
	}
	return l, nil
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

// loadZone loads an IANA time zone. It refuses Local, whose meaning depends on the
// host: a bill's date must not.
func loadZone(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, errors.New(`"Local" depends on the host's settings; want an IANA name such as Asia/Shanghai or UTC`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not a known time zone; want an IANA name such as Asia/Shanghai or UTC", name)
	}
	return loc, nil
}

// zoneOf returns the zone of a codec list's friendly item, or UTC.
func zoneOf(list []CodecItem) *time.Location {
	for _, it := range list {
		if it.Friendly != nil && it.Friendly.Zone != "" {
			if loc, err := loadZone(it.Friendly.Zone); err == nil {
				return loc
			}
		}
	}
	return time.UTC
}

func parseEpoch(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// codecItems turns a configured codec list into codec items; layout is the snowflake
// layout that a friendly item needs, nil where there is none.
func codecItems(path string, list []CodecItem, layout *snowflake.Layout) ([]codec.Item, error) {
	items := make([]codec.Item, 0, len(list))
	for i, it := range list {
		at := fmt.Sprintf("%s.codec[%d]", path, i)
		if n := countSet(it); n != 1 {
			return nil, fmt.Errorf("%s: want exactly one item, such as radix: {radix: 62}; one of: %s", at, itemKinds())
		}
		switch {
		case it.Radix != nil:
			items = append(items, codec.Radix(it.Radix.Radix, it.Radix.Width, it.Radix.PadStart))
		case it.ToString != nil:
			items = append(items, codec.ToString(it.ToString.Width, it.ToString.PadStart))
		case it.Prefix != nil:
			items = append(items, codec.Prefix(it.Prefix.Value))
		case it.Suffix != nil:
			items = append(items, codec.Suffix(it.Suffix.Value))
		case it.DatePrefix != nil:
			items = append(items, codec.DatePrefix(it.DatePrefix.Delimiter, it.DatePrefix.Pattern))
		case it.Period != nil:
			items = append(items, codec.Period(it.Period.Delimiter))
		case it.Friendly != nil:
			if layout == nil {
				return nil, fmt.Errorf("%s.friendly: only a snowflake generator's ids have a friendly form", at)
			}
			loc := time.UTC
			if z := it.Friendly.Zone; z != "" {
				var err error
				if loc, err = loadZone(z); err != nil {
					return nil, fmt.Errorf("%s.friendly.zone: %w", at, err)
				}
			}
			items = append(items, codec.Friendly(*layout, loc))
		}
	}
	return items, nil
}

func countSet(it CodecItem) int {
	n := 0
	v := reflect.ValueOf(it)
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			n++
		}
	}
	return n
}

func itemKinds() string {
	var kinds []string
	t := reflect.TypeFor[CodecItem]()
	for i := range t.NumField() {
		kinds = append(kinds, t.Field(i).Tag.Get("yaml"))
	}
	return strings.Join(kinds, ", ")
}

// itemErr turns a codec build error into an error at the item's YAML path.
func itemErr(path string, err error) error {
	var ie *codec.ItemError
	if errors.As(err, &ie) {
		at := fmt.Sprintf("%s.codec[%d].%s", path, ie.Index, ie.Item)
		if ie.Field != "" {
			at += "." + ie.Field
		}
		return fmt.Errorf("%s: %s", at, ie.Reason)
	}
	return fmt.Errorf("%s.codec: %w", path, err)
}

func buildCodec(path string, list []CodecItem, layout *snowflake.Layout) (codec.Codec, error) {
	items, err := codecItems(path, list, layout)
	if err != nil {
		return nil, err
	}
	c, err := codec.New(items...)
	if err != nil {
		return nil, itemErr(path, err)
	}
	return c, nil
}

func buildGroupedCodec(path string, p segment.Period, list []CodecItem) (codec.GroupedCodec, error) {
	if len(list) == 0 {
		list = []CodecItem{{DatePrefix: &DatePrefixItem{Delimiter: "-"}}} // 20261027-42
	}
	items, err := codecItems(path, list, nil)
	if err != nil {
		return nil, err
	}
	c, err := codec.NewGrouped(p, items...)
	if err != nil {
		return nil, itemErr(path, err)
	}
	return c, nil
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
	}
	return nil
}
