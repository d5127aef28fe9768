package cosid

import (
	"context"
	"fmt"
	"reflect"
)

// Fill sets the fields of the struct that ptr points to which carry a tag
// `cosid:"name"` and are still zero: an int64 field gets the next id of the segment
// or snowflake generator name, a string field the text of the next id of any
// generator. Fill checks every tagged field before it takes any id, so a wrong field
// costs no id; the error names the field.
//
//	type Order struct {
//		ID     int64  `cosid:"order"`
//		BillNo string `cosid:"bill"`
//	}
func (rt *Runtime) Fill(ctx context.Context, ptr any) error {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("cosid: Fill needs a non-nil pointer to a struct, got %T", ptr)
	}
	v = v.Elem()
	type target struct {
		field reflect.Value
		gen   *generator
	}
	var targets []target
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, ok := f.Tag.Lookup("cosid")
		if !ok {
			continue
		}
		where := "cosid: Fill: field " + f.Name
		if tn := v.Type().Name(); tn != "" {
			where = "cosid: Fill: field " + tn + "." + f.Name
		}
		if !f.IsExported() {
			return fmt.Errorf("%s is not exported", where)
		}
		g, err := rt.generator(name)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		switch f.Type.Kind() {
		case reflect.Int64:
			if g.plan.strategy == strategyPeriodic {
				return fmt.Errorf("%s is an int64, but %q is a periodic-segment generator: its ids need a string field", where, name)
			}
		case reflect.String:
		default:
			return fmt.Errorf("%s has type %v; want int64 or string", where, f.Type)
		}
		if v.Field(i).IsZero() {
			targets = append(targets, target{v.Field(i), g})
		}
	}
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cosid: Fill: %w", err)
		}
		if t.field.Kind() == reflect.String {
			text, err := t.gen.next(ctx)
			if err != nil {
				return prefixed(err)
			}
			t.field.SetString(text)
			continue
		}
		id, err := t.gen.nextInt(ctx)
		if err != nil {
			return prefixed(err)
		}
		t.field.SetInt(id)
	}
	return nil
}
