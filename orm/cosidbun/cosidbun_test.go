package cosidbun_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/ormtest"
)

// Order is a model whose primary key and bill number come from CosId.
type Order struct {
	ID     cosid.ID `bun:",pk" cosid:"order"`
	BillNo string   `cosid:"bill"`
	Item   string
}

func (o *Order) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return ids.Fill(ctx, q, o)
}

// Event is a model whose key is a Snowflake id.
type Event struct {
	ID   int64 `bun:",pk" cosid:"event"`
	Name string
}

func (e *Event) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return ids.Fill(ctx, q, e)
}

// TestFiller_FillsTheZeroFieldsOfARow checks an insert of one row: its zero tagged
// fields get ids, a set one is kept, the row reads back as it was filled, and an
// update fills nothing.
func TestFiller_FillsTheZeroFieldsOfARow(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		useRuntime(t, nil)
		db := openDB(t, d, (*Order)(nil))
		ctx := t.Context()
		o := Order{Item: "book"}
		if _, err := db.NewInsert().Model(&o).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if o.ID != 1 || !strings.HasSuffix(o.BillNo, "-1") {
			t.Fatalf("inserted %+v; want ID 1 and a bill number", o)
		}
		kept := Order{ID: 42, Item: "pen"}
		if _, err := db.NewInsert().Model(&kept).Exec(ctx); err != nil || kept.ID != 42 {
			t.Fatalf("insert of a set id: %+v, %v; want it kept", kept, err)
		}
		var back Order
		if err := db.NewSelect().Model(&back).Where("id = ?", o.ID).Scan(ctx); err != nil || back != o {
			t.Errorf("read back %+v, %v; want %+v", back, err, o)
		}
		up := Order{ID: o.ID, Item: "books"}
		if _, err := db.NewUpdate().Model(&up).Column("item").WherePK().Exec(ctx); err != nil || up.BillNo != "" {
			t.Errorf("update: %+v, %v; want no field filled", up, err)
		}
	})
}

// TestFiller_SliceTakesOneRange checks that the rows of a slice take their ids of
// a segment in one NextRange, consecutive in the slice's order around a set one,
// whatever other goroutines take meanwhile; a slice of pointers alike; and a
// Snowflake's one by one, ascending.
func TestFiller_SliceTakesOneRange(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		useRuntime(t, nil)
		db := openDB(t, d, (*Order)(nil), (*Event)(nil))
		ctx := t.Context()
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for g := range 4 {
			wg.Go(func() {
				for k := range 5 {
					set := cosid.ID(-1 - g*5 - k) // set: kept, and the others' ids close up around it
					orders := make([]*Order, 200)
					for i := range orders {
						orders[i] = &Order{Item: "x"}
					}
					orders[7].ID = set
					if _, err := db.NewInsert().Model(&orders).Exec(ctx); err != nil {
						errs <- err
						return
					}
					for i, o := range orders {
						want := orders[0].ID + cosid.ID(i)
						switch {
						case i == 7:
							want = set
						case i > 7:
							want--
						}
						if o.ID != want {
							errs <- fmt.Errorf("row %d has id %d, want %d: consecutive ids, one range a slice", i, o.ID, want)
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
		n, err := db.NewSelect().Model((*Order)(nil)).Count(ctx)
		if err != nil || n != 4*5*200 {
			t.Errorf("%d orders, %v; want %d", n, err, 4*5*200)
		}
		events := make([]Event, 300)
		if _, err := db.NewInsert().Model(&events).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(events, func(a, b Event) int { return int(min(max(a.ID-b.ID, -1), 1)) }) || events[0].ID == events[1].ID {
			t.Errorf("the Snowflake ids of a slice are not ascending")
		}
	})
}

// TestFiller_BadFieldsFailBeforeAnyID checks that a model whose tagged fields
// cannot be filled fails its insert, naming the field, inserting nothing and
// taking no id.
func TestFiller_BadFieldsFailBeforeAnyID(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		useRuntime(t, nil)
		db := openDB(t, d, (*Order)(nil), (*wrongType)(nil), (*textOnly)(nil))
		ctx := t.Context()
		for _, tc := range []struct {
			model   any
			mention string
		}{
			{&wrongType{}, "cosidbun: cosid: Fill: field wrongType.Num has type int; want int64 or string"},
			{&textOnly{}, `cosidbun: cosid: Fill: field textOnly.ID is an int64, but "bill" is a periodic-segment generator, whose ids are text only`},
		} {
			if _, err := db.NewInsert().Model(tc.model).Exec(ctx); err == nil || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("insert of %T: %v; want an error mentioning %q", tc.model, err, tc.mention)
			}
			if n, err := db.NewSelect().Model(tc.model).Count(ctx); err != nil || n != 0 {
				t.Errorf("%T: %d rows, %v; want none", tc.model, n, err)
			}
		}
		if err := ids.Fill(ctx, db.NewInsert(), Order{}); err == nil || !strings.Contains(err.Error(), "Fill needs the model's pointer") {
			t.Errorf("Fill of a struct value: %v", err)
		}
		o := Order{}
		if _, err := db.NewInsert().Model(&o).Exec(ctx); err != nil || o.ID != 1 {
			t.Errorf("the next order is %d, %v; want 1: the failed inserts took no id", o.ID, err)
		}
	})
}

type wrongType struct {
	ID  int64 `bun:",pk" cosid:"order"`
	Num int   `cosid:"order"`
}

func (m *wrongType) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return ids.Fill(ctx, q, m)
}

type textOnly struct {
	ID int64 `bun:",pk" cosid:"bill"`
}

func (m *textOnly) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return ids.Fill(ctx, q, m)
}

// TestFiller_StoreDownFailsTheInsert checks that an insert whose generator cannot
// take ids fails with an error wrapping cosid.ErrUnavailable, and inserts nothing.
func TestFiller_StoreDownFailsTheInsert(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		useRuntime(t, ormtest.Down)
		db := openDB(t, d, (*Order)(nil))
		ctx := t.Context()
		_, err := db.NewInsert().Model(&[]Order{{Item: "a"}, {Item: "b"}}).Exec(ctx)
		if !errors.Is(err, cosid.ErrUnavailable) || !errors.Is(err, ormtest.ErrDown) || !strings.Contains(err.Error(), "field Order.ID") {
			t.Errorf("insert on a store that is down: %v; want ErrUnavailable naming the field", err)
		}
		if n, err := db.NewSelect().Model((*Order)(nil)).Count(ctx); err != nil || n != 0 {
			t.Errorf("%d rows, %v; want none", n, err)
		}
	})
}

// Line is a model of a generator whose batches are 10 ids (step 10, lookahead 0s).
type Line struct {
	ID  int64 `bun:",pk" cosid:"line"`
	Qty int
}

func (l *Line) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return ids.Fill(ctx, q, l)
}

// TestFiller_SliceIsOneReservation checks that a slice of 100 rows of a generator
// whose batches are 10 ids costs one reservation beyond the generator's first,
// where a NextInt per row would cost ten: the first row's hook filled them all.
func TestFiller_SliceIsOneReservation(t *testing.T) {
	eachDialect(t, func(t *testing.T, d dialect) {
		var reserves atomic.Int64
		useRuntime(t, ormtest.Counting("/line", &reserves))
		db := openDB(t, d, (*Line)(nil))
		lines := make([]Line, 100)
		if _, err := db.NewInsert().Model(&lines).Exec(t.Context()); err != nil {
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
