package cosid

import (
	"context"
	"fmt"
	"reflect"
)

// Fill sets the fields of the struct that ptr points to which carry a tag
// `cosid:"name"` and are still zero: an int64 field, or an ID (any type whose kind
// is int64), gets the next id of a generator whose ids are int64s (a segment, a
// snowflake: see GeneratorInfo.IntIDs), a string field the text of the next id of
// any generator. It fills the fields of embedded structs too, and of embedded pointers
// to structs, which it allocates when they are nil and hold a tagged field. Fill
// checks every tagged field before it takes any id, so a wrong field costs no id;
// the error names the field. A field tagged `cosid:"-"` is skipped.
//
//	type Order struct {
//		ID     ID     `cosid:"order"`
//		BillNo string `cosid:"bill"`
//	}
func (rt *Runtime) Fill(ctx context.Context, ptr any) error {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("cosid: Fill needs a non-nil pointer to a struct, got %T", ptr)
	}
	var targets []target
	prefix := "field "
	if tn := v.Elem().Type().Name(); tn != "" {
		prefix += tn + "."
	}
	if err := rt.collect(v.Elem().Type(), v.Elem(), nil, prefix, &targets); err != nil {
		return err
	}
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cosid: Fill: %w", err)
		}
		field := reach(v.Elem(), t.path)
		if field.Kind() == reflect.String {
			text, err := t.gen.next(ctx)
			if err != nil {
				return prefixed(err)
			}
			field.SetString(text)
			continue
		}
		id, err := t.gen.nextInt(ctx)
		if err != nil {
			return prefixed(err)
		}
		field.SetInt(id)
	}
	return nil
}

// target is a field that Fill sets: the field indexes that lead to it.
type target struct {
	path []int
	gen  *generator
}

// collect adds the tagged zero fields of the struct type typ, and of its embedded
// structs and pointers to structs, to targets. v is the struct, or the zero Value
// behind a nil pointer; path leads to it, and prefix names its fields in errors.
func (rt *Runtime) collect(typ reflect.Type, v reflect.Value, path []int, prefix string, targets *[]target) error {
	for i := range typ.NumField() {
		f := typ.Field(i)
		where := "cosid: Fill: " + prefix + f.Name
		at := append(path[:len(path):len(path)], i)
		var fv reflect.Value
		if v.IsValid() {
			fv = v.Field(i)
		}
		if f.Anonymous {
			t := f.Type
			if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
				if fv.IsValid() && fv.IsNil() && !fv.CanSet() {
					continue // an unexported embedded pointer: nothing of it can be set
				}
				if fv.IsValid() && !fv.IsNil() {
					fv = fv.Elem()
				} else {
					fv = reflect.Value{}
				}
				t = t.Elem()
			}
			if t.Kind() == reflect.Struct {
				if err := rt.collect(t, fv, at, prefix+f.Name+".", targets); err != nil {
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
		if !fv.IsValid() || fv.IsZero() {
			*targets = append(*targets, target{at, g})
		}
	}
	return nil
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
