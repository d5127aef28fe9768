// Package cosident gives ent entities their ids from CosId: Mixin makes a
// schema's id an int64 of its own (a cosid.ID, with no auto-increment in the
// database), and Hook sets it, on each create that has none, to the next id of a
// cosid.Source:
//
//	// schema/order.go
//	func (Order) Mixin() []ent.Mixin { return []ent.Mixin{cosident.Mixin{}} }
//
//	// at start-up
//	orders, err := rt.Source("order", "")
//	client.Order.Use(cosident.Hook(orders))
//
// Hook works on any schema whose id is an int64 or a cosid.ID that the create
// may set (a field.Int64("id") of its own, as Mixin declares), on every dialect
// of ent. ent runs hooks one mutation at a time, a CreateBulk's too, so each row
// takes its id with Source.NextInt, the generator's hot path: an atomic add while
// its range lasts, for a segment.
//
// It is a hook and not the id field's DefaultFunc because a DefaultFunc takes no
// context and returns no error: a generator that cannot give an id (its store is
// down) could only panic or insert a zero. A hook's error fails the create, before
// the row is written.
package cosident

import (
	"context"
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
	"github.com/cosid-go/cosid"
)

// Mixin declares a schema's id: a field.Int64("id") of Go type cosid.ID (its JSON
// a string), immutable, whose column has no auto-increment, since Hook sets it.
type Mixin struct{ mixin.Schema }

// Fields returns the id field.
func (Mixin) Fields() []ent.Field {
	noIncrement := false
	return []ent.Field{
		field.Int64("id").
			GoType(cosid.ID(0)).
			Immutable().
			Annotations(entsql.Annotation{Incremental: &noIncrement}).
			Comment("set by CosId (orm/cosident.Hook)"),
	}
}

// idMutation is a create mutation whose id the caller may set, of type T.
type idMutation[T int64 | cosid.ID] interface {
	ID() (T, bool)
	SetID(T)
}

// Hook returns the hook that sets the id of each create mutation that has none to
// src's next id: use it with client.Order.Use(cosident.Hook(src)), or in a
// schema's Hooks. A mutation whose schema has no settable int64 or cosid.ID id
// fails, naming its type; an id that src cannot give fails the create, wrapping
// src's error (cosid.ErrUnavailable when its store is down).
func Hook(src cosid.Source) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if !m.Op().Is(ent.OpCreate) {
				return next.Mutate(ctx, m)
			}
			var err error
			switch m := m.(type) {
			case idMutation[cosid.ID]:
				err = setID(ctx, src, m, func(v int64) cosid.ID { return cosid.ID(v) })
			case idMutation[int64]:
				err = setID(ctx, src, m, func(v int64) int64 { return v })
			default:
				err = fmt.Errorf("its schema has no id of type int64 or cosid.ID that a create sets: declare field.Int64(\"id\"), or use cosident.Mixin")
			}
			if err != nil {
				return nil, fmt.Errorf("cosident: %s: %w", m.Type(), err)
			}
			return next.Mutate(ctx, m)
		})
	}
}

// setID sets m's id, unless it has one, to src's next.
func setID[T int64 | cosid.ID](ctx context.Context, src cosid.Source, m idMutation[T], as func(int64) T) error {
	if id, ok := m.ID(); ok && id != 0 {
		return nil
	}
	v, err := src.NextInt(ctx)
	if err != nil {
		return err
	}
	m.SetID(as(v))
	return nil
}
