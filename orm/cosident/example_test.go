package cosident_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/orm/cosident"
	"github.com/cosid-go/cosid/orm/cosident/internal/entdemo"
)

// The schema entdemo is generated from gives Order its id with cosident.Mixin;
// at start-up, the client's Order creates take it from the generator "order".
func Example() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem }
`))
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	orders, err := rt.Source("order", "")
	if err != nil {
		log.Fatal(err)
	}

	dir, _ := os.MkdirTemp("", "cosident")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "shop.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		log.Fatal(err)
	}
	client := entdemo.NewClient(entdemo.Driver(entsql.OpenDB(dialect.SQLite, db)))
	defer client.Close()
	if err := client.Schema.Create(ctx); err != nil {
		log.Fatal(err)
	}
	client.Order.Use(cosident.Hook(orders))

	book := client.Order.Create().SetItem("book").SaveX(ctx)
	pens := client.Order.CreateBulk(client.Order.Create().SetItem("pen"), client.Order.Create().SetItem("ink")).SaveX(ctx)
	fmt.Println(book.ID, pens[0].ID, pens[1].ID)
	// Output: 1 2 3
}
