package cosid

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"go.yaml.in/yaml/v3"
)

// The strategies of a generator.
const (
	strategySegment   = "segment"
	strategyPeriodic  = "periodic-segment"
	strategySnowflake = "snowflake"
)

var strategies = []string{strategySegment, strategyPeriodic, strategySnowflake}

// settingsOf lists the settings each strategy takes, by YAML key; strategy is
// everyone's.
var settingsOf = map[string][]string{
	strategySegment: {"store", "step", "initial-offset", "lookahead", "max-batch", "reserve-timeout", "range-ttl", "codec"},
	strategyPeriodic: {"store", "step", "initial-offset", "lookahead", "max-batch", "reserve-timeout", "range-ttl", "codec",
		"period", "zone", "prewarm", "seal-after"},
	strategySnowflake: {"store", "machine-id", "slots", "layout", "epoch", "unit", "timestamp-bits", "machine-bits",
		"sequence-bits", "lease-ttl", "tolerance", "owner-key", "codec"},
}

// policyFields maps the Go fields of segment's policies to their YAML keys.
var policyFields = map[string]string{
	"Step": "step", "InitialOffset": "initial-offset", "Lookahead": "lookahead", "MaxBatch": "max-batch",
	"ReserveTimeout": "reserve-timeout", "RangeTTL": "range-ttl", "Prewarm": "prewarm", "SealAfter": "seal-after",
}

func (rt *Runtime) build(ctx context.Context, name string, gc GeneratorConfig, o runtimeOptions) (*generator, error) {
	path := "cosid.generators." + name
	fail := func(key, format string, args ...any) (*generator, error) {
		at := path
		if key != "" {
			at = strictyaml.Join(path, key)
		}
		return nil, configErr(fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	if err := store.CheckKey(rt.key(name)); err != nil {
		return fail("", "the generator's key: %v", err)
	}
	allowed, ok := settingsOf[gc.Strategy]
	switch {
	case gc.Strategy == "":
		return fail("strategy", "missing; want one of: %s", strings.Join(strategies, ", "))
	case !ok:
		return fail("strategy", "unknown strategy %q; want one of: %s", gc.Strategy, strings.Join(strategies, ", "))
	}
	if key := foreignSetting(gc, allowed); key != "" {
		return fail(key, "not a setting of strategy %s; it takes: %s", gc.Strategy, strings.Join(allowed, ", "))
	}
	g := &generator{name: name, strategy: gc.Strategy}
	var err error
	switch gc.Strategy {
	case strategySegment, strategyPeriodic:
		err = rt.buildSegment(g, path, gc, o)
	default:
		err = rt.buildSnowflake(ctx, g, path, gc, o)
	}
	if err != nil {
		return nil, configErr(err)
	}
	return g, nil
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

func (rt *Runtime) rangeStore(path string, gc GeneratorConfig) (store.RangeStore, error) {
	if gc.Store == "" {
		return nil, fmt.Errorf("%s.store: missing; want one of the configured stores: %s", path, quotedList(sortedKeys(rt.stores)))
	}
	st := rt.stores[gc.Store]
	if st == nil {
		return nil, fmt.Errorf("%s.store: no store %q; want one of: %s", path, gc.Store, quotedList(sortedKeys(rt.stores)))
	}
	return st, nil
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

func (rt *Runtime) buildSegment(g *generator, path string, gc GeneratorConfig, o runtimeOptions) error {
	st, err := rt.rangeStore(path, gc)
	if err != nil {
		return err
	}
	b := batchPolicy(gc)
	opts := []segment.Option{segment.WithLogger(o.logger)}
	if gc.Strategy == strategySegment {
		if g.codec, err = buildCodec(path, gc.Codec, nil); err != nil {
			return err
		}
		if g.seg, err = segment.New(st, rt.key(g.name), b, opts...); err != nil {
			return policyErr(path, err)
		}
		rt.closers = append(rt.closers, g.seg)
		return nil
	}

	if gc.Period == "" {
		return fmt.Errorf("%s.period: missing; want YEAR, YEAR_MONTH or YEAR_MONTH_DAY", path)
	}
	period, err := segment.ParsePeriod(gc.Period)
	if err != nil {
		return fmt.Errorf("%s.period: %q is not a period; want YEAR, YEAR_MONTH or YEAR_MONTH_DAY", path, gc.Period)
	}
	if gc.Zone == "" {
		return fmt.Errorf("%s.zone: missing; the zone is explicit: want an IANA time zone such as Asia/Shanghai or UTC", path)
	}
	loc, err := time.LoadLocation(gc.Zone)
	if err != nil {
		return fmt.Errorf("%s.zone: %q is not a known time zone; want an IANA name such as Asia/Shanghai or UTC", path, gc.Zone)
	}
	pp := segment.DefaultPeriodicPolicy()
	if gc.Prewarm != nil {
		pp.Prewarm = *gc.Prewarm
	}
	if gc.SealAfter != nil {
		pp.SealAfter = *gc.SealAfter
	}
	if g.grouped, err = buildGroupedCodec(path, period, gc.Codec); err != nil {
		return err
	}
	if g.per, err = segment.NewPeriodic(st, rt.key(g.name), period, loc, b, pp, opts...); err != nil {
		return policyErr(path, err)
	}
	rt.closers = append(rt.closers, g.per)
	return nil
}

func (rt *Runtime) buildSnowflake(ctx context.Context, g *generator, path string, gc GeneratorConfig, o runtimeOptions) error {
	layout, err := snowflakeLayout(path, gc)
	if err != nil {
		return err
	}
	if g.codec, err = buildCodec(path, gc.Codec, &layout); err != nil {
		return err
	}
	opts := []snowflake.Option{snowflake.WithLogger(o.logger)}
	if gc.MachineID != nil {
		if gc.Store != "" || gc.Slots != nil || gc.LeaseTTL != nil || gc.Tolerance != nil || gc.OwnerKey != "" {
			return fmt.Errorf("%s.machine-id: a fixed machine id takes no store, slots, lease-ttl, tolerance or owner-key", path)
		}
		if g.snow, err = snowflake.NewFixed(*gc.MachineID, layout, opts...); err != nil {
			return fmt.Errorf("%s.machine-id: %w", path, err)
		}
		rt.closers = append(rt.closers, g.snow)
		return nil
	}
	st, err := rt.rangeStore(path, gc)
	if err != nil {
		return fmt.Errorf("%w (or set machine-id)", err)
	}
	leases, ok := st.(store.SlotLeaseStore)
	if !ok {
		return fmt.Errorf("%s.store: store %q cannot lease machine ids; use one that can, or set machine-id", path, gc.Store)
	}
	opts = append(opts, snowflake.WithNamespace(rt.key(g.name)))
	if gc.Slots != nil {
		opts = append(opts, snowflake.WithLimit(*gc.Slots))
	}
	if gc.LeaseTTL != nil {
		opts = append(opts, snowflake.WithLeaseTTL(*gc.LeaseTTL))
	}
	if gc.Tolerance != nil {
		opts = append(opts, snowflake.WithTolerance(*gc.Tolerance))
	}
	if gc.OwnerKey != "" {
		opts = append(opts, snowflake.WithOwnerKey(gc.OwnerKey))
	}
	if g.snow, err = snowflake.New(ctx, leases, layout, opts...); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rt.closers = append(rt.closers, g.snow)
	return nil
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
				if loc, err = time.LoadLocation(z); err != nil {
					return nil, fmt.Errorf("%s.friendly.zone: %q is not a known time zone; want an IANA name such as Asia/Shanghai or UTC", at, z)
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

func decodeStrict(node *yaml.Node, path string, v any) error {
	return strictyaml.Decode(node, path, v)
}
