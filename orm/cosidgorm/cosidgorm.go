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
// The plugin hands the row, or the slice, to cosid.Runtime.Fill, which takes a
// field's ids for the rows of a slice at once where the generator hands out
// ranges (a segment): one NextRange of as many ids as rows, consecutive and from
// the ranges the generator reserves ahead, so that a batch insert waits on no
// store while the generator has ids at hand. Where it does not (a snowflake, a
// periodic segment's text), each row takes the generator's next id, its hot path.
// Not Source.Take, which reserves in the store on every call: that suits
// one-shot programs, not a service's inserts.
//
// The fields are filled before the model's BeforeSave and BeforeCreate hooks, so
// that they see the ids, and in the create's transaction; a create that fails
// after that leaves its ids unused, a gap, never a duplicate. A field that cannot
// be filled (an unknown or keyed generator, a field of another type, an int64
// field of a generator whose ids are text only) fails the create before any id is
// taken, naming the field. A create from a map has no fields to fill and is left
// alone, as is a model without a cosid tag.
package cosidgorm

import (
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
	tagged sync.Map // *schema.Schema → bool: whether a field has a cosid tag
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

func (p *Plugin) fill(db *gorm.DB) {
	st := db.Statement
	if db.Error != nil || st.Schema == nil || !p.hasTags(st.Schema) {
		return
	}
	var rows any
	switch rv := st.ReflectValue; rv.Kind() {
	case reflect.Struct:
		if !rv.CanAddr() {
			db.AddError(fmt.Errorf("cosidgorm: %w: create a pointer to the %s, so that its ids can be set", gorm.ErrInvalidValue, st.Schema.Name))
			return
		}
		rows = rv.Addr().Interface()
	case reflect.Slice:
		rows = rv.Interface()
	case reflect.Array:
		if !rv.CanAddr() {
			db.AddError(fmt.Errorf("cosidgorm: %w: create a pointer to the array of %s, so that its ids can be set", gorm.ErrInvalidValue, st.Schema.Name))
			return
		}
		rows = rv.Slice(0, rv.Len()).Interface()
	default:
		return // a map: no struct fields to fill
	}
	if err := p.rt.Fill(st.Context, rows); err != nil {
		db.AddError(fmt.Errorf("cosidgorm: %w", err))
	}
}

// hasTags reports whether a field of s has a cosid tag, once per model.
func (p *Plugin) hasTags(s *schema.Schema) bool {
	if v, ok := p.tagged.Load(s); ok {
		return v.(bool)
	}
	tagged := false
	for _, f := range s.Fields {
		if _, ok := f.Tag.Lookup("cosid"); ok {
			tagged = true
			break
		}
	}
	p.tagged.Store(s, tagged)
	return tagged
}
