package cosid_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cosid-go/cosid"

	_ "modernc.org/sqlite" // the driver of the SQLite stores below, which the root does not link
)

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
	ids, err := rt.Take(ctx, "order", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, statErr := os.Stat(filepath.Join(dir, "ids.db"))
	fmt.Println(ids, "in the file next to cosid.yaml:", statErr == nil)
	// Output: [1 2 3] in the file next to cosid.yaml: true
}

func ExampleRuntime_Fill() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem }
    code:
      strategy: segment
      store: mem
      codec: [ { prefix: { value: "C-" } }, { radix: { radix: 10, width: 4, pad-start: true } } ]
`))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	type Order struct {
		ID    int64  `cosid:"order"` // the next id of a segment or snowflake
		Code  string `cosid:"code"`  // the text of the next id of any generator
		Ref   int64  `cosid:"order"` // set already: Fill leaves it
		Cache int64  `cosid:"-"`     // never filled
	}
	o := Order{Ref: 99}
	if err := rt.Fill(ctx, &o); err != nil {
		fmt.Println(err) // names the field, before any id is taken
		return
	}
	fmt.Printf("%+v\n", o)
	// Output: {ID:1 Code:C-0001 Ref:99 Cache:0}
}

func ExampleRuntime_Segment() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte("cosid:\n  stores: {mem: {type: memory}}\n  generators:\n    order: {strategy: segment, store: mem, step: 10}\n"))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	// Take the generator once and keep it: its Next is one atomic add.
	order, err := rt.Segment(ctx, "order")
	if err != nil {
		fmt.Println(err) // ErrUnknownGenerator, or ErrUnavailable while its store is down
		return
	}
	for range 3 {
		id, err := order.Next()
		if errors.Is(err, cosid.ErrUnavailable) { // segment.ErrUnavailable matches it too
			fmt.Println("the store is down; try again later")
			return
		}
		fmt.Println(id)
	}
	// Output:
	// 1
	// 2
	// 3
}

func ExampleRuntime_Snowflake() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte("cosid:\n  generators:\n    event: {strategy: snowflake, machine-id: 7}\n"))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	event, err := rt.Snowflake(ctx, "event")
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _ := event.Next() // waits out the millisecond it started in: see NewFixed
	second, _ := event.Next()
	parts := event.Layout().Parse(second)
	fmt.Println("machine", parts.Machine, "increasing:", second > first)
	// Output: machine 7 increasing: true
}

// A store that cannot be used now answers an error wrapping ErrUnavailable, from
// rt.Next and from a typed generator alike; the runtime tries again on later calls,
// and the generators work once the store is back, without a restart.
func ExampleErrUnavailable() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "cosid-example-")
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data") // not there yet: the store cannot open
	cfg, _ := cosid.ParseConfig([]byte("cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: " + filepath.Join(data, "ids.db") +
		", options: {initSchema: true}}\n  generators:\n    order: {strategy: segment, store: db}\n"))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	_, err := rt.Next(ctx, "order")
	fmt.Println("unavailable:", errors.Is(err, cosid.ErrUnavailable), "a configuration error:", errors.Is(err, cosid.ErrConfig))

	os.Mkdir(data, 0o700) // the store is back
	for {
		id, err := rt.Next(ctx, "order")
		if errors.Is(err, cosid.ErrUnavailable) {
			time.Sleep(50 * time.Millisecond) // sleep-ok: paces the retries, as a caller does
			continue
		}
		fmt.Println(id, err)
		break
	}
	// Output:
	// unavailable: true a configuration error: false
	// 1 <nil>
}
