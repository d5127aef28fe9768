package cosidgorm_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/orm/cosidgorm"
	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

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

	dir, _ := os.MkdirTemp("", "cosidgorm")
	defer os.RemoveAll(dir)
	db, err := gorm.Open(sqlite.Open(filepath.Join(dir, "shop.db")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		log.Fatal(err)
	}
	if err := db.Use(cosidgorm.New(rt)); err != nil {
		log.Fatal(err)
	}

	type Order struct {
		ID   cosid.ID `gorm:"primaryKey;autoIncrement:false" cosid:"order"`
		Item string
	}
	if err := db.AutoMigrate(&Order{}); err != nil {
		log.Fatal(err)
	}
	one := Order{Item: "book"}
	db.Create(&one) // one id
	many := []Order{{Item: "pen"}, {Item: "ink"}, {Item: "pad"}}
	db.Create(&many) // three consecutive ids, one NextRange
	fmt.Println(one.ID, many[0].ID, many[1].ID, many[2].ID)
	// Output: 1 2 3 4
}
