package cosidbun_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/orm/cosidbun"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// Item is a bun model whose id comes from CosId: its BeforeAppendModel hook hands
// its inserts to the Filler.
type Item struct {
	ID   cosid.ID `bun:",pk" cosid:"item"`
	Name string
}

var items *cosidbun.Filler // set at start-up: cosidbun.New(rt)

func (it *Item) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return items.Fill(ctx, q, it)
}

func Example() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  stores: { mem: { type: memory } }
  generators:
    item: { strategy: segment, store: mem }
`))
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	items = cosidbun.New(rt)

	dir, _ := os.MkdirTemp("", "cosidbun")
	defer os.RemoveAll(dir)
	sqldb, err := sql.Open("sqlite", filepath.Join(dir, "shop.db"))
	if err != nil {
		log.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	if _, err := db.NewCreateTable().Model((*Item)(nil)).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	one := Item{Name: "book"}
	if _, err := db.NewInsert().Model(&one).Exec(ctx); err != nil { // one id
		log.Fatal(err)
	}
	many := []Item{{Name: "pen"}, {Name: "ink"}, {Name: "pad"}}
	if _, err := db.NewInsert().Model(&many).Exec(ctx); err != nil { // one NextRange
		log.Fatal(err)
	}
	fmt.Println(one.ID, many[0].ID, many[1].ID, many[2].ID)
	// Output: 1 2 3 4
}
