package cosid_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid"
)

func ExampleOpen() {
	ctx := context.Background()
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: shop
  stores:
    mem: { type: memory }
  generators:
    order:
      strategy: segment
      store: mem
      codec: [ { prefix: { value: "O-" } }, { radix: { radix: 10, width: 6, pad-start: true } } ]
`))
	if err != nil {
		fmt.Println(err) // names the YAML path of the mistake
		return
	}
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()
	for range 3 {
		text, err := rt.Next(ctx, "order")
		if errors.Is(err, cosid.ErrUnavailable) {
			fmt.Println("the store is down; try again later:", err)
			return
		}
		fmt.Println(text)
	}
	// Output:
	// O-000001
	// O-000002
	// O-000003
}

func ExampleSource_Take() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte("cosid:\n  stores: {mem: {type: memory}}\n  generators:\n    ticket: {strategy: segment, store: mem}\n"))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()
	tickets, _ := rt.Source("ticket", "")
	first, _ := tickets.Take(ctx, 2)
	then, _ := tickets.Take(ctx, 2)
	fmt.Println(first, then) // exactly what was reserved: the second call continues
	// Output: [1 2] [3 4]
}

func ExampleRuntime_Source() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem }
    ticket: { strategy: segment, store: mem, keyed: true } # a sequence per project
`))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	// Make each Source once and keep it: the name and key are checked here, and
	// its ids cost no lookup.
	orders, err := rt.Source("order", "")
	if err != nil {
		fmt.Println(err) // ErrUnknownGenerator, ErrKeyRequired, ErrNotKeyed, ErrInvalidKey
		return
	}
	id, _ := orders.NextInt(ctx)
	batch, _ := orders.NextRange(ctx, 100) // 100 in a row, for a bulk insert
	fmt.Println(id, batch)

	tickets, _ := rt.Source("ticket", "apollo")
	text, _ := tickets.Next(ctx)
	fmt.Println("apollo", text)

	_, err = rt.Source("ticket", "")
	fmt.Println(errors.Is(err, cosid.ErrKeyRequired))
	// Output:
	// 1 [2, 102)
	// apollo 1
	// true
}
