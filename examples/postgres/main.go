// Command postgres hands out order numbers and daily bill numbers from PostgreSQL,
// through a configuration, the way a service uses CosId: the runtime opens the
// database on first use, and a database that is down makes the calls fail with
// cosid.ErrUnavailable until it is back.
//
//	go run ./examples/postgres -dsn 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver of the sql store

	"github.com/cosid-go/cosid"
)

const config = `
cosid:
  namespace: example
  stores:
    db: { type: sql, driver: pgx, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db }
    bill:
      strategy: periodic-segment
      store: db
      period: YEAR_MONTH_DAY
      zone: UTC
      codec:
        - date-prefix: { delimiter: "-" }
        - radix: { radix: 10, width: 6, pad-start: true }
`

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "the PostgreSQL URL (default $DATABASE_URL)")
	n := flag.Int("n", 3, "how many ids of each generator to print")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *dsn, *n); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, dsn string, n int) error {
	if dsn == "" {
		return errors.New("no database: give -dsn or set DATABASE_URL")
	}
	cfg, err := cosid.ParseConfig([]byte(config))
	if err != nil {
		return err
	}
	cfg.Stores["db"].Settings["dsn"] = dsn
	rt, err := cosid.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close()
	for _, name := range []string{"order", "bill"} {
		for range n {
			text, err := rt.Next(ctx, name)
			if err != nil {
				return err // errors.Is(err, cosid.ErrUnavailable) while the database is down
			}
			fmt.Fprintf(w, "%s %s\n", name, text)
		}
	}
	return nil
}
