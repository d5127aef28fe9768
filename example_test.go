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

func ExampleRuntime_Take() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte("cosid:\n  stores: {mem: {type: memory}}\n  generators:\n    ticket: {strategy: segment, store: mem}\n"))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()
	first, _ := rt.Take(ctx, "ticket", 2)
	then, _ := rt.Take(ctx, "ticket", 2)
	fmt.Println(first, then) // exactly what was reserved: the second call continues
	// Output: [1 2] [3 4]
}
