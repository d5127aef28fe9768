package sqlstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver: the program imports it, sqlstore does not

	"github.com/cosid-go/cosid/store/sqlstore"
)

// Open a store on a SQLite file, creating its tables, and reserve ranges of a key.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "cosid")
	defer os.RemoveAll(dir)
	st, err := sqlstore.Open("sqlite", filepath.Join(dir, "cosid.db"), 2*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	first, _ := st.Reserve(ctx, "app/order", 100, 1)
	second, _ := st.Reserve(ctx, "app/order", 100, 1)
	fmt.Println(st.Dialect(), first, second)
	// Output: sqlite [1, 101) [101, 201)
}

// Print the schema for a DBA to run, here with the range table in schema ids.
func ExampleSchema() {
	script, err := sqlstore.Schema("postgresql", sqlstore.Tables{Range: "ids.cosid_range"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(script[:strings.Index(script, "(")])
	// Output: create table if not exists "ids"."cosid_range"
}
