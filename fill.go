package cosid

import (
	"context"
	"fmt"
	"reflect"
)

// Fill sets the fields of a struct which carry a tag `cosid:"name"` and are still
// zero: an int64 field, or an ID (any type whose kind is int64), gets the next id of
// a generator whose ids are int64s (a segment, a snowflake: see
// GeneratorInfo.IntIDs), a string field the text of the next id of any generator.
// It fills the fields of embedded structs too, and of embedded pointers to structs,
// which it allocates when they are nil and hold a tagged field. A field tagged
// `cosid:"-"` is skipped.
//
// v is a non-nil pointer to the struct, or a slice of structs or of pointers to
// structs (or a pointer to such a slice), whose rows it fills alike: a batch
// before a bulk insert. A field's ids for the rows come at once where its
// generator hands out ranges (a segment): one Source.NextRange, consecutive ids in
// the slice's order; else one id a row. Fill checks every tagged field before it
// takes any id, so a wrong field costs no id; the error names the field.
//
//	type Order struct {
//		ID     ID     `cosid:"order"`
//		BillNo string `cosid:"bill"`
//	}
func (rt *Runtime) Fill(ctx context.Context, v any) error {
	rows, typ, err := fillRows(v)
	if err != nil {
		return err
	}
	var targets []target
	prefix := "field "
	if tn := typ.Name(); tn != "" {
		prefix += tn + "."
	}
	if err := rt.collect(typ, nil, prefix, &targets); err != nil {
		return err
	}
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cosid: Fill: %w", err)
		}
		if err := t.fill(ctx, rows); err != nil {
			return fmt.Errorf("cosid: Fill: %s: %w", t.name, err)
		}
	}
	return nil
}

// fillRows returns the structs that v, an argument of Fill, holds, and their type.
func fillRows(v any) ([]reflect.Value, reflect.Type, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct {
		return []reflect.Value{rv.Elem()}, rv.Elem().Type(), nil
	}
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() == reflect.Slice {
		elem := rv.Type().Elem()
		ptrs := elem.Kind() == reflect.Pointer
		if ptrs {
			elem = elem.Elem()
		}
		if elem.Kind() == reflect.Struct {
			rows := make([]reflect.Value, rv.Len())
			for i := range rows {
				row := rv.Index(i)
				if ptrs {
					if row.IsNil() {
						return nil, nil, fmt.Errorf("cosid: Fill: row %d of the %T is nil", i, v)
					}
					row = row.Elem()
				}
				rows[i] = row
			}
			return rows, elem, nil
		}
	}
	return nil, nil, fmt.Errorf("cosid: Fill needs a non-nil pointer to a struct, or a slice of structs or of pointers to structs, got %T", v)
}

// target is a tagged field that Fill sets: the field indexes that lead to it, and
// its generator.
type target struct {
	name string // Order.ID, for errors
	path []int
	gen  *generator
	text bool // a string field: the text of an id
}

// fill sets t in each of rows where it is zero: with one NextRange where there are
// several and the generator hands out ranges, else with one id a row.
func (t target) fill(ctx context.Context, rows []reflect.Value) error {
	zero := make([]reflect.Value, 0, len(rows))
	for _, row := range rows {
		if peek(row, t.path) {
			zero = append(zero, row)
		}
	}
	if g := t.gen; len(zero) > 1 && !t.text && g.ranges != nil {
		b, err := g.get(ctx)
		if err != nil {
			return err
		}
		r, err := g.ranges.nextRange(b.built, int64(len(zero)))
		if err != nil {
			return g.failed(b, err)
		}
		for i, row := range zero {
			reach(row, t.path).SetInt(r.Start + int64(i))
		}
		return nil
	}
	for _, row := range zero {
		if t.text {
			text, err := t.gen.next(ctx)
			if err != nil {
				return err
			}
			reach(row, t.path).SetString(text)
			continue
		}
		id, err := t.gen.nextInt(ctx)
		if err != nil {
			return err
		}
		reach(row, t.path).SetInt(id)
	}
	return nil
}

// collect adds the tagged fields of the struct type typ, and of its embedded
// structs and pointers to structs, to targets. path leads to typ, and prefix names
// its fields in errors.
func (rt *Runtime) collect(typ reflect.Type, path []int, prefix string, targets *[]target) error {
	for i := range typ.NumField() {
		f := typ.Field(i)
		where := "cosid: Fill: " + prefix + f.Name // prefix is "field Order." or "field Order.Embedded."
		at := append(path[:len(path):len(path)], i)
		if f.Anonymous {
			t := f.Type
			if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
				t = t.Elem()
			}
			if t.Kind() == reflect.Struct {
				if err := rt.collect(t, at, prefix+f.Name+".", targets); err != nil {
					return err
				}
				continue
			}
		}
		name, ok := f.Tag.Lookup("cosid")
		if !ok || name == "-" { // `cosid:"-"` skips the field, as `json:"-"` does
			continue
		}
		if !f.IsExported() {
			return fmt.Errorf("%s is not exported", where)
		}
		src, err := rt.Source(name, "")
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		g := src.g
		switch f.Type.Kind() {
		case reflect.Int64:
			if !g.intIDs {
				return fmt.Errorf("%s is an int64, but %q is a %s generator, whose ids are text only: they need a string field", where, name, g.plan.def.name)
			}
		case reflect.String:
		default:
			return fmt.Errorf("%s has type %v; want int64 or string", where, f.Type)
		}
		*targets = append(*targets, target{prefix + f.Name, at, g, f.Type.Kind() == reflect.String})
	}
	return nil
}

// peek reports whether the field of v that path leads to is zero and can be set:
// a nil embedded pointer on the way holds a zero field, unless it is unexported,
// so that it cannot be allocated.
func peek(v reflect.Value, path []int) bool {
	for _, i := range path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v.CanSet()
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v.IsZero()
}

// reach returns the field of v that path leads to, allocating the nil pointers on
// the way.
func reach(v reflect.Value, path []int) reflect.Value {
	for _, i := range path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}
