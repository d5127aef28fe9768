// Package cosidgorm is a gorm plugin that gives models their ids from CosId.
// Before gorm creates a row, or a slice of rows, it fills each field tagged
// `cosid:"GENERATOR"` that is still zero with an id of that generator of a
// cosid.Runtime, on any gorm dialect:
//
//	type Order struct {
//		ID   cosid.ID `gorm:"primaryKey;autoIncrement:false" cosid:"order"`
//		Item string
//	}
//
//	db.Use(cosidgorm.New(rt))
//	db.Create(&Order{Item: "book"})          // ID: the next id of "order"
//	db.Create(&[]Order{{Item: "a"}, {Item: "b"}}) // both in one NextRange
//
// A field of kind int64 (int64, cosid.ID) takes the ids of a generator whose ids
// are int64s (a segment, a snowflake); a string field the text of any generator's.
// The rows of a slice take a field's ids at once where the generator hands out
// ranges (a segment): one Source.NextRange of as many ids as rows, consecutive and
// from the ranges the generator reserves ahead, so that a batch insert waits on no
// store while the generator has ids at hand. Where it does not (a snowflake, a
// periodic segment's text), each row takes the generator's next id, its hot path.
// It does not use Source.Take, which reserves in the store on every call: that
// suits one-shot programs, not a service's inserts.
//
// The fields are filled before the model's BeforeSave and BeforeCreate hooks, so
// that they see the ids, and in the create's transaction; a create that fails
// after that leaves its ids unused, a gap, never a duplicate. A model's tagged
// fields are checked once, on its first create: an unknown or keyed generator, a
// field of another type, an int64 field of a generator whose ids are text only,
// fail that create before any id is taken, naming the field. A create from a map
// has no fields to fill and is left alone.
package cosidgorm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/cosid-go/cosid"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Plugin is the gorm plugin of a cosid.Runtime: db.Use(cosidgorm.New(rt)). It is
// safe for concurrent use, and for several *gorm.DB at once.
type Plugin struct {
	rt     *cosid.Runtime
	models sync.Map // *schema.Schema → modelFields
}

// New returns the plugin that fills the tagged fields of models with ids of the
// generators of rt.
func New(rt *cosid.Runtime) *Plugin { return &Plugin{rt: rt} }

// Name returns "cosid", the plugin's name in gorm's registry.
func (p *Plugin) Name() string { return "cosid" }

// Initialize registers the callback "cosid:fill" before gorm's "gorm:before_create".
func (p *Plugin) Initialize(db *gorm.DB) error {
	return db.Callback().Create().Before("gorm:before_create").Register("cosid:fill", p.fill)
}

// modelFields is what a model's first create found: its tagged fields, or why
// they cannot be filled.
type modelFields struct {
	fields []field
	err    error
}

// field is a tagged field of a model, and the generator that fills it.
type field struct {
	f      *schema.Field
	src    cosid.Source // held, so that no create looks the generator up by name
	ints   bool         // of kind int64: NextInt or NextRange; else a string: Next
	ranges bool         // the generator hands out ranges: one NextRange for all rows
}

func (p *Plugin) fill(db *gorm.DB) {
	st := db.Statement
	if db.Error != nil || st.Schema == nil {
		return
	}
	m, ok := p.models.Load(st.Schema)
	if !ok {
		fields, err := p.check(st.Schema)
		m, _ = p.models.LoadOrStore(st.Schema, modelFields{fields, err})
	}
	mf := m.(modelFields)
	if mf.err != nil {
		db.AddError(mf.err)
		return
	}
	if len(mf.fields) == 0 {
		return
	}
	var rows []reflect.Value
	switch rv := st.ReflectValue; rv.Kind() {
	case reflect.Slice, reflect.Array:
		rows = make([]reflect.Value, 0, rv.Len())
		for i := range rv.Len() {
			if row := reflect.Indirect(rv.Index(i)); row.Kind() == reflect.Struct {
				rows = append(rows, row)
			}
		}
	case reflect.Struct:
		rows = []reflect.Value{rv}
	default:
		return // a map: no struct fields to fill
	}
	ctx := st.Context
	for _, f := range mf.fields {
		if err := f.fill(ctx, rows); err != nil {
			db.AddError(fmt.Errorf("cosidgorm: %s.%s: %w", st.Schema.Name, f.f.Name, err))
			return
		}
	}
}

// fill sets f in each of rows where it is zero.
func (f field) fill(ctx context.Context, rows []reflect.Value) error {
	zero := make([]reflect.Value, 0, len(rows))
	for _, row := range rows {
		// ReflectValueOf allocates a nil embedded struct on the way: its fields
		// are zero, and this one is filled.
		if v := f.f.ReflectValueOf(ctx, row); v.IsZero() {
			zero = append(zero, v)
		}
	}
	switch {
	case len(zero) == 0:
		return nil
	case !f.ints:
		for _, v := range zero {
			text, err := f.src.Next(ctx)
			if err != nil {
				return err
			}
			v.SetString(text)
		}
	case f.ranges && len(zero) > 1:
		r, err := f.src.NextRange(ctx, int64(len(zero)))
		if err != nil {
			return err
		}
		for i, v := range zero {
			v.SetInt(r.Start + int64(i))
		}
	default:
		for _, v := range zero {
			id, err := f.src.NextInt(ctx)
			if err != nil {
				return err
			}
			v.SetInt(id)
		}
	}
	return nil
}

// check finds the tagged fields of s and the generators that fill them.
func (p *Plugin) check(s *schema.Schema) ([]field, error) {
	infos := map[string]cosid.GeneratorInfo{}
	for _, g := range p.rt.Generators() {
		infos[g.Name] = g
	}
	var fields, errs = []field{}, []error{}
	for _, f := range s.Fields {
		name, ok := f.Tag.Lookup("cosid")
		if !ok || name == "-" {
			continue
		}
		where := "cosidgorm: " + s.Name + "." + f.Name
		src, err := p.rt.Source(name, "")
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		info := infos[name]
		switch f.FieldType.Kind() {
		case reflect.Int64:
			if !info.IntIDs {
				errs = append(errs, fmt.Errorf("%s is an int64, but %q is a %s generator, whose ids are text only: tag a string field with it", where, name, info.Strategy))
				continue
			}
		case reflect.String:
		default:
			errs = append(errs, fmt.Errorf("%s has type %v; want int64, cosid.ID or string", where, f.FieldType))
			continue
		}
		fields = append(fields, field{f: f, src: src, ints: f.FieldType.Kind() == reflect.Int64, ranges: info.Ranges})
	}
	return fields, errors.Join(errs...)
}
