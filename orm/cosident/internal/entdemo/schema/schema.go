// Package schema is the ent schema of the tests of cosident: entdemo is generated
// from it (go generate ./... in orm/cosident/internal/entdemo).
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"github.com/cosid-go/cosid/orm/cosident"
)

// Order's id is cosident.Mixin's: a cosid.ID.
type Order struct{ ent.Schema }

// Mixin gives Order its id.
func (Order) Mixin() []ent.Mixin { return []ent.Mixin{cosident.Mixin{}} }

// Fields of Order.
func (Order) Fields() []ent.Field { return []ent.Field{field.String("item")} }

// Event's id is an int64 of its own.
type Event struct{ ent.Schema }

// Fields of Event.
func (Event) Fields() []ent.Field {
	noIncrement := false
	return []ent.Field{
		field.Int64("id").Immutable().Annotations(entsql.Annotation{Incremental: &noIncrement}),
		field.String("name"),
	}
}
