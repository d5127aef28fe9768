// Package cosidbun gives bun models their ids from CosId: a model's
// BeforeAppendModel hook hands its insert to a Filler, which fills each field
// tagged `cosid:"GENERATOR"` that is still zero with an id of that generator of a
// cosid.Runtime, on any bun dialect:
//
//	var ids *cosidbun.Filler // cosidbun.New(rt), at start-up
//
//	type Order struct {
//		ID   cosid.ID `bun:",pk" cosid:"order"`
//		Item string
//	}
//
//	func (o *Order) BeforeAppendModel(ctx context.Context, q bun.Query) error {
//		return ids.Fill(ctx, q, o)
//	}
//
// A field of kind int64 (int64, cosid.ID) takes the ids of a generator whose ids
// are int64s (a segment, a snowflake); a string field the text of any generator's.
// bun calls the hook once per row of a slice; the call of the slice's first row
// hands the whole slice to cosid.Runtime.Fill, which takes a field's ids for the
// rows at once where the generator hands out ranges (a segment): one NextRange of
// as many ids as rows, consecutive and from the ranges the generator reserves
// ahead; where it does not (a snowflake, a periodic segment's text), each row
// takes the generator's next id, its hot path. The calls of the other rows find
// their fields filled. Not Source.Take, which reserves in the store on every call:
// that suits one-shot programs, not a service's inserts.
//
// Only inserts are filled; the hook of another query returns at once. A field that
// cannot be filled (an unknown or keyed generator, a field of another type, an
// int64 field of a generator whose ids are text only) fails the insert before any
// id is taken, naming the field.
package cosidbun

import (
	"context"
	"fmt"
	"reflect"

	"github.com/cosid-go/cosid"
	"github.com/uptrace/bun"
)

// Filler fills the tagged fields of the models of inserts with ids of the
// generators of a cosid.Runtime. It is safe for concurrent use, and for several
// *bun.DB at once.
type Filler struct{ rt *cosid.Runtime }

// New returns the Filler of the generators of rt.
func New(rt *cosid.Runtime) *Filler { return &Filler{rt: rt} }

// Fill fills the zero tagged fields of row, a pointer to the struct whose
// BeforeAppendModel hook bun calls with q, when q is an insert. When row is the
// first of a slice that q inserts, it fills every row of the slice.
func (f *Filler) Fill(ctx context.Context, q bun.Query, row any) error {
	if _, ok := q.(*bun.InsertQuery); !ok {
		return nil
	}
	rv := reflect.ValueOf(row)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("cosidbun: Fill needs the model's pointer, the receiver of its BeforeAppendModel; got %T", row)
	}
	rows := row
	if all := reflect.Indirect(reflect.ValueOf(q.GetModel().Value())); all.Kind() == reflect.Slice && all.Len() > 1 {
		if first := reflect.Indirect(all.Index(0)); first.CanAddr() && first.Addr().Pointer() == rv.Pointer() {
			rows = all.Interface()
		}
	}
	if err := f.rt.Fill(ctx, rows); err != nil {
		return fmt.Errorf("cosidbun: %w", err)
	}
	return nil
}
