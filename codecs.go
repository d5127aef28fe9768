package cosid

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
)

// This file turns a configuration's codec list (config.go's CodecItem) into the
// codec package's items, and answers the text forms of generators by name.

// Codec returns the text form of the generator name, whose ids are int64s (see
// GeneratorInfo.IntIDs). A generator whose ids are text only wraps
// ErrUnknownGenerator, as an unknown name does.
func (rt *Runtime) Codec(name string) (codec.Codec, error) { return codecOf(rt, name) }

// Codec returns the text form of the generator name, as Runtime.Codec does, without
// opening anything.
func (c Config) Codec(name string) (codec.Codec, error) { return codecOf(c, name) }

func codecOf(ps planner, name string) (codec.Codec, error) {
	p, err := ps.plan(name)
	if err != nil {
		return nil, err
	}
	ints, ok := p.impl.(intIDs)
	if !ok {
		return nil, fmt.Errorf("cosid: %w: %q is a %s generator, whose ids are text only; its text form is not a Codec", ErrUnknownGenerator, name, p.def.name)
	}
	return ints.intCodec(), nil
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
		case it.UUIDv7 != nil:
			switch {
			case layout == nil:
				return nil, fmt.Errorf("%s.uuidv7: only a snowflake generator's ids have a UUIDv7 form", at)
			case layout.Unit != time.Millisecond:
				return nil, fmt.Errorf("%s.uuidv7: a UUIDv7 holds Unix milliseconds, and this generator's unit is %v; set unit: 1ms (the default layout's; layout: javascript counts seconds)", at, layout.Unit)
			}
			items = append(items, codec.UUIDv7(*layout))
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
