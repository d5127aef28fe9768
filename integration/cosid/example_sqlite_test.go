package cosid_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cosid-go/cosid"
)

// The root's examples on the embedded default's SQLite: a program that runs them
// imports _ "modernc.org/sqlite" (docs_stores_test.go here), as database/sql asks.

func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "cosid-example-")
	defer os.RemoveAll(dir)
	// dsn: ids.db is the file next to cosid.yaml, whatever the working directory.
	os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(`
cosid:
  namespace: shop
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 100 }
`), 0o600)
	ctx := context.Background()
	rt, err := cosid.Load(ctx, filepath.Join(dir, "cosid.yaml"), cosid.WithLogger(nil))
	if err != nil {
		fmt.Println(err) // a configuration error names the file and the YAML path
		return
	}
	defer rt.Close()
	orders, err := rt.Source("order", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := orders.Take(ctx, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, statErr := os.Stat(filepath.Join(dir, "ids.db"))
	fmt.Println(ids, "in the file next to cosid.yaml:", statErr == nil)
	// Output: [1 2 3] in the file next to cosid.yaml: true
}

// A store that is reached but cannot be used as it is (here a SQLite file whose
// folder does not exist) answers an error wrapping ErrNotSetUp, not ErrUnavailable:
// waiting does not help, an operator must act. The runtime still tries again on
// later calls, so the generators work once the store is set up, without a restart.
func ExampleErrNotSetUp() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "cosid-example-")
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data") // not there yet: the store cannot open
	cfg, _ := cosid.ParseConfig([]byte("cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: " + filepath.Join(data, "ids.db") +
		", options: {initSchema: true}}\n  generators:\n    order: {strategy: segment, store: db}\n"))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	_, err := rt.Next(ctx, "order")
	fmt.Println("not set up:", errors.Is(err, cosid.ErrNotSetUp), "unavailable:", errors.Is(err, cosid.ErrUnavailable))

	os.Mkdir(data, 0o700) // the operator makes the folder
	for {
		id, err := rt.Next(ctx, "order")
		if errors.Is(err, cosid.ErrNotSetUp) || errors.Is(err, cosid.ErrUnavailable) {
			time.Sleep(50 * time.Millisecond) // sleep-ok: paces the retries, as a caller does
			continue
		}
		fmt.Println(id, err)
		break
	}
	// Output:
	// not set up: true unavailable: false
	// 1 <nil>
}
