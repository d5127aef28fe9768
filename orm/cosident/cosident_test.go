package cosident_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/ormtest"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/orm/cosident"
	"github.com/cosid-go/cosid/orm/cosident/internal/entdemo"
	"github.com/cosid-go/cosid/store"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx" of COSID_TEST_POSTGRES
	_ "modernc.org/sqlite"             // the driver "sqlite", pure Go
)

// sources opens ormtest's runtime, its stores wrapped by wrap unless it is nil,
// and returns the Sources of order and event.
func sources(t testing.TB, wrap func(store.RangeStore) store.RangeStore) (order, event cosid.Source) {
	t.Helper()
	rt := ormtest.Runtime(t, wrap)
	var err error
	if order, err = rt.Source("order", ""); err != nil {
		t.Fatal(err)
	}
	if event, err = rt.Source("event", ""); err != nil {
		t.Fatal(err)
	}
	return order, event
}

// dialects open an ent client of their own for a test, its tables created.
var dialects = []struct {
	name string
	open func(t testing.TB) *entdemo.Client
}{
	{"SQLite", func(t testing.TB) *entdemo.Client {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "ent.db")+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		return client(t, dialect.SQLite, db)
	}},
	{"PostgreSQL", func(t testing.TB) *entdemo.Client {
		db, err := sql.Open("pgx", testenv.PostgresSchema(t, "cosident"))
		if err != nil {
			t.Fatal(err)
		}
		return client(t, dialect.Postgres, db)
	}},
}

func client(t testing.TB, name string, db *sql.DB) *entdemo.Client {
	t.Helper()
	c := entdemo.NewClient(entdemo.Driver(entsql.OpenDB(name, db)))
	t.Cleanup(func() { c.Close() })
	if err := c.Schema.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

// eachDialect runs f on every dialect, as a subtest.
func eachDialect(t *testing.T, f func(t *testing.T, c *entdemo.Client)) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) { f(t, d.open(t)) })
	}
}

// TestHook_SetsTheIDOfEachCreate checks that a create takes its id from the
// generator, a cosid.ID id (Mixin's) and an int64 one alike; that a set id is
// kept; that each row of a CreateBulk takes one; and that updates pass through.
func TestHook_SetsTheIDOfEachCreate(t *testing.T) {
	eachDialect(t, func(t *testing.T, c *entdemo.Client) {
		order, event := sources(t, nil)
		c.Order.Use(cosident.Hook(order))
		c.Event.Use(cosident.Hook(event))
		ctx := t.Context()
		o, err := c.Order.Create().SetItem("book").Save(ctx)
		if err != nil || o.ID != 1 {
			t.Fatalf("create = %+v, %v; want id 1", o, err)
		}
		kept, err := c.Order.Create().SetID(1_000_000).SetItem("pen").Save(ctx)
		if err != nil || kept.ID != 1_000_000 {
			t.Fatalf("create with a set id = %+v, %v; want it kept", kept, err)
		}
		bulk := make([]*entdemo.OrderCreate, 100)
		for i := range bulk {
			bulk[i] = c.Order.Create().SetItem("x")
		}
		orders, err := c.Order.CreateBulk(bulk...).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range orders {
			if o.ID != cosid.ID(2+i) {
				t.Fatalf("bulk row %d has id %d, want %d", i, o.ID, 2+i)
			}
		}
		e, err := c.Event.Create().SetName("start").Save(ctx)
		if err != nil || e.ID <= 0 {
			t.Fatalf("create of an event = %+v, %v; want a Snowflake id", e, err)
		}
		if back, err := c.Order.Get(ctx, 1); err != nil || back.Item != "book" {
			t.Errorf("Get(1) = %+v, %v", back, err)
		}
		if err := c.Order.UpdateOneID(1).SetItem("books").Exec(ctx); err != nil {
			t.Errorf("update: %v", err)
		}
		if n := c.Order.Query().CountX(ctx); n != 102 {
			t.Errorf("%d orders, want 102", n)
		}
	})
}

// TestHook_StoreDownFailsTheCreate checks that a create whose generator cannot
// take an id fails, wrapping cosid.ErrUnavailable and naming the type, and writes
// no row.
func TestHook_StoreDownFailsTheCreate(t *testing.T) {
	eachDialect(t, func(t *testing.T, c *entdemo.Client) {
		order, _ := sources(t, ormtest.Down)
		c.Order.Use(cosident.Hook(order))
		_, err := c.Order.Create().SetItem("book").Save(t.Context())
		if !errors.Is(err, cosid.ErrUnavailable) || !errors.Is(err, ormtest.ErrDown) || !strings.Contains(err.Error(), "cosident: Order: ") {
			t.Errorf("create on a store that is down: %v; want ErrUnavailable naming Order", err)
		}
		if n := c.Order.Query().CountX(t.Context()); n != 0 {
			t.Errorf("%d orders, want none", n)
		}
	})
}

// foreign is a create mutation of a schema whose id the create cannot set (ent's
// default id, which the database assigns).
type foreign struct{ ent.Mutation }

func (foreign) Op() ent.Op   { return ent.OpCreate }
func (foreign) Type() string { return "Note" }

// TestHook_RefusesASchemaWithoutASettableID checks that a create whose id is not
// an int64 or a cosid.ID that it may set fails, naming the type and the fix,
// without taking an id.
func TestHook_RefusesASchemaWithoutASettableID(t *testing.T) {
	order, _ := sources(t, nil)
	called := false
	m := cosident.Hook(order)(ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) {
		called = true
		return nil, nil
	}))
	_, err := m.Mutate(t.Context(), foreign{})
	if err == nil || called || !strings.Contains(err.Error(), `cosident: Note: its schema has no id of type int64 or cosid.ID that a create sets: declare field.Int64("id"), or use cosident.Mixin`) {
		t.Errorf("Mutate = %v (next called: %v); want the schema refused", err, called)
	}
	if id, err := order.NextInt(t.Context()); err != nil || id != 1 {
		t.Errorf("the next order is %d, %v; want 1: the refusal took no id", id, err)
	}
}
