package cosidgorm_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/ormtest"
	"github.com/cosid-go/cosid/orm/cosidgorm"
)

// Order is a model whose primary key, a line and a bill number come from CosId.
type Order struct {
	ID     cosid.ID `gorm:"primaryKey;autoIncrement:false" cosid:"order"`
	BillNo string   `cosid:"bill"`
	Item   string
	Lines  []Line
}

// Line is a child of Order: its key is an int64 of another generator.
type Line struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false" cosid:"line"`
	OrderID cosid.ID
	Qty     int
}

// Event is a model whose key is a Snowflake id.
type Event struct {
	ID   cosid.ID `gorm:"primaryKey;autoIncrement:false" cosid:"event"`
	Name string
}

// eachDialect runs f on every dialect, as a subtest.
func eachDialect(t *testing.T, f func(t *testing.T, d dialect)) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) { f(t, d) })
	}
}

// TestPlugin_FillsTheZeroFieldsOfARow checks a create of one row: its zero tagged
// fields get ids, a set one is kept, its children get theirs and its key, and the
// row reads back as it was filled.
func TestPlugin_FillsTheZeroFieldsOfARow(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		db := openDB(t, d, ormtest.Runtime(t, nil), &Order{}, &Line{})
		o := Order{Item: "book", Lines: []Line{{Qty: 1}, {Qty: 2, ID: 500}}}
		if err := db.Create(&o).Error; err != nil {
			t.Fatal(err)
		}
		if o.ID != 1 || !strings.HasSuffix(o.BillNo, "-1") || o.Lines[0].ID != 1 || o.Lines[1].ID != 500 || o.Lines[0].OrderID != o.ID {
			t.Fatalf("created %+v; want ID 1, a bill number, line 1 and the set line 500, both of order 1", o)
		}
		kept := Order{ID: 42, Item: "pen"}
		if err := db.Create(&kept).Error; err != nil || kept.ID != 42 {
			t.Fatalf("create of a set id: %+v, %v; want it kept", kept, err)
		}
		var back Order
		if err := db.Preload("Lines").First(&back, o.ID).Error; err != nil {
			t.Fatal(err)
		}
		if back.ID != o.ID || back.BillNo != o.BillNo || len(back.Lines) != 2 {
			t.Errorf("read back %+v, want %+v", back, o)
		}
	})
}

// TestPlugin_SliceTakesOneRange checks that the rows of a slice take their ids of
// a segment in one NextRange: consecutive, in the slice's order, around the rows
// whose id is set; and a Snowflake's one by one, ascending.
func TestPlugin_SliceTakesOneRange(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		db := openDB(t, d, ormtest.Runtime(t, nil), &Order{}, &Line{}, &Event{})
		if err := db.Create(&Order{Item: "first"}).Error; err != nil { // 1, and the generator's range
			t.Fatal(err)
		}
		orders := make([]*Order, 1000)
		for i := range orders {
			orders[i] = &Order{Item: "x"}
		}
		orders[10].ID = 5_000_000
		if err := db.CreateInBatches(orders, 250).Error; err != nil {
			t.Fatal(err)
		}
		// CreateInBatches creates 4 slices: each takes its own range.
		for i, o := range orders {
			want := cosid.ID(2 + i)
			switch {
			case i == 10:
				want = 5_000_000
			case i > 10 && i < 250:
				want--
			}
			if i >= 250 {
				want = orders[250].ID + cosid.ID(i-250)
			}
			if o.ID != want {
				t.Fatalf("order %d has id %d, want %d: consecutive ids, one range a slice", i, o.ID, want)
			}
		}
		var n int64
		if err := db.Model(&Order{}).Count(&n).Error; err != nil || n != 1001 {
			t.Errorf("%d orders, %v; want 1001", n, err)
		}
		events := make([]Event, 300)
		if err := db.Create(&events).Error; err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(events, func(a, b Event) int { return int(min(max(a.ID-b.ID, -1), 1)) }) || events[0].ID == events[1].ID {
			t.Errorf("the Snowflake ids of a slice are not ascending")
		}
	})
}

// TestPlugin_SliceIsOneReservation checks that a slice of 100 rows of a generator
// whose batches are 10 ids (line: step 10, lookahead 0s) costs one reservation
// beyond the generator's first, where a NextInt per row would cost ten.
func TestPlugin_SliceIsOneReservation(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		var reserves atomic.Int64
		rt := ormtest.Runtime(t, ormtest.Counting("/line", &reserves))
		db := openDB(t, d, rt, &Order{}, &Line{})
		o := Order{}
		if err := db.Create(&o).Error; err != nil {
			t.Fatal(err)
		}
		lines := make([]Line, 100)
		for i := range lines {
			lines[i].OrderID = o.ID
		}
		if err := db.Create(&lines).Error; err != nil {
			t.Fatal(err)
		}
		for i := range lines {
			if lines[i].ID != lines[0].ID+int64(i) {
				t.Fatalf("line %d has id %d, want %d: consecutive", i, lines[i].ID, lines[0].ID+int64(i))
			}
		}
		if n := reserves.Load(); n > 2 {
			t.Errorf("%d reservations for a slice of 100 rows in batches of 10; want at most 2, the generator's first and one NextRange", n)
		}
	})
}

// TestPlugin_BadFieldsFailBeforeAnyID checks that a model whose tagged fields
// cannot be filled fails its create, naming the field and what to do, inserting
// nothing and taking no id.
func TestPlugin_BadFieldsFailBeforeAnyID(t *testing.T) {
	type WrongType struct {
		ID  int64 `gorm:"primaryKey;autoIncrement:false" cosid:"order"`
		Num int   `cosid:"order"`
	}
	type Unknown struct {
		ID int64 `gorm:"primaryKey;autoIncrement:false" cosid:"nope"`
	}
	type TextOnly struct {
		ID int64 `gorm:"primaryKey;autoIncrement:false" cosid:"bill"`
	}
	type Keyed struct {
		ID int64 `gorm:"primaryKey;autoIncrement:false" cosid:"tenant"`
	}
	eachDialect(t, func(t *testing.T, d dialect) {
		rt := ormtest.Runtime(t, nil)
		db := openDB(t, d, rt, &WrongType{}, &Unknown{}, &TextOnly{}, &Keyed{}, &Order{}, &Line{})
		for _, tc := range []struct {
			name    string
			model   any
			mention []string
		}{
			{"WrongType", &WrongType{}, []string{"cosidgorm: cosid: Fill: field WrongType.Num has type int; want int64 or string"}},
			{"Unknown", &Unknown{}, []string{"cosidgorm: cosid: Fill: field Unknown.ID", `"nope"`, "unknown generator"}},
			{"TextOnly", &TextOnly{}, []string{"field TextOnly.ID is an int64, but \"bill\" is a periodic-segment generator, whose ids are text only"}},
			{"Keyed", &Keyed{}, []string{"field Keyed.ID", "keyed"}},
		} {
			for range 2 { // the second create meets the cached answer
				err := db.Create(tc.model).Error
				for _, m := range tc.mention {
					if err == nil || !strings.Contains(err.Error(), m) {
						t.Errorf("%s: create: %v; want an error mentioning %q", tc.name, err, m)
					}
				}
			}
			var n int64
			if err := db.Model(tc.model).Count(&n).Error; err != nil || n != 0 {
				t.Errorf("%s: %d rows, %v; want none", tc.name, n, err)
			}
		}
		o := Order{}
		if err := db.Create(&o).Error; err != nil || o.ID != 1 {
			t.Errorf("the next order is %d, %v; want 1: the failed creates took no id", o.ID, err)
		}
	})
}

// TestPlugin_StoreDownFailsTheCreate checks that a create whose generator cannot
// take ids fails with an error wrapping cosid.ErrUnavailable, and inserts nothing.
func TestPlugin_StoreDownFailsTheCreate(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		db := openDB(t, d, ormtest.Runtime(t, ormtest.Down), &Order{}, &Line{})
		err := db.Create(&[]Order{{Item: "a"}, {Item: "b"}}).Error
		if !errors.Is(err, cosid.ErrUnavailable) || !errors.Is(err, ormtest.ErrDown) || !strings.Contains(err.Error(), "cosidgorm: cosid: Fill: field Order.ID") {
			t.Errorf("create on a store that is down: %v; want ErrUnavailable naming the field", err)
		}
		var n int64
		if err := db.Model(&Order{}).Count(&n).Error; err != nil || n != 0 {
			t.Errorf("%d rows, %v; want none", n, err)
		}
	})
}

// TestPlugin_ConcurrentCreatesNeverRepeatAnID creates rows from many goroutines,
// one at a time and in slices, on one runtime: every id is unique (the primary
// key would refuse a repeat), all are there, and each slice's are consecutive, one
// NextRange, whatever the other goroutines took meanwhile.
func TestPlugin_ConcurrentCreatesNeverRepeatAnID(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		rt := ormtest.Runtime(t, nil)
		db := openDB(t, d, rt, &Order{}, &Line{})
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Go(func() {
				for i := range 10 {
					if (g+i)%2 == 0 {
						if err := db.Create(&Order{Item: "one"}).Error; err != nil {
							errs <- err
							return
						}
						continue
					}
					batch := make([]Order, 100)
					if err := db.Create(&batch).Error; err != nil {
						errs <- err
						return
					}
					for j := range batch {
						if batch[j].ID != batch[0].ID+cosid.ID(j) {
							errs <- fmt.Errorf("a slice's ids %d, … %d at %d: not consecutive", batch[0].ID, batch[j].ID, j)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var ids []cosid.ID
		if err := db.Model(&Order{}).Order("id").Pluck("id", &ids).Error; err != nil {
			t.Fatal(err)
		}
		if want := 8 * (5*1 + 5*100); len(ids) != want || len(slices.Compact(ids)) != len(ids) {
			t.Errorf("%d orders, want %d, all distinct", len(ids), want)
		}
	})
}

// TestPlugin_MapCreatesAreLeftAlone checks that a create from a map, which has no
// struct fields, passes through.
func TestPlugin_MapCreatesAreLeftAlone(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		db := openDB(t, d, ormtest.Runtime(t, nil), &Order{}, &Line{})
		if err := db.Model(&Order{}).Create(map[string]any{"id": 7, "item": "map", "bill_no": "x"}).Error; err != nil {
			t.Fatal(err)
		}
		var o Order
		if err := db.First(&o, 7).Error; err != nil || o.Item != "map" {
			t.Errorf("read back %+v, %v", o, err)
		}
	})
}

var _ gorm.Plugin = cosidgorm.New(nil)
