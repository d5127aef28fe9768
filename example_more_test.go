package cosid_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid"
)

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

// An ID is the id an application keeps: Fill fills it, and its JSON is a string,
// which JavaScript reads without losing digits.
func ExampleID() {
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem, initial-offset: 920213737330208768 }
`))
	rt, err := cosid.Open(context.Background(), cfg, cosid.WithLogger(nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()
	type Order struct {
		ID   cosid.ID `cosid:"order" json:"id"`
		Item string   `json:"item"`
	}
	o := Order{Item: "book"}
	if err := rt.Fill(context.Background(), &o); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(o)
	fmt.Println(string(out))

	var in Order
	_ = json.Unmarshal([]byte(`{"id":42,"item":"pen"}`), &in) // a number is read too
	fmt.Println(in.ID, in.Item)
	// Output:
	// {"id":"920213737330208768","item":"book"}
	// 42 pen
}

// An id of CosId 4.x's CosIdGenerator: 44 bits of milliseconds, 20 of machine, 16
// of sequence, as 15 characters of radix 62 whose order is the order of issue.
// Decode takes it apart.
func Example_cosidGenerator() {
	ctx := context.Background()
	cfg, _ := cosid.ParseConfig([]byte(`
cosid:
  generators:
    trace: { strategy: cosid-generator, machine-id: 7 }                             # or a store to lease it from
    audit: { strategy: cosid-generator, machine-id: 7, format: friendly, zone: UTC }
`))
	rt, _ := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	defer rt.Close()

	trace, err := rt.Source("trace", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	id, _ := trace.Next(ctx) // such as 0V70MWFf000700g
	d, _ := rt.Decode("trace", id)
	fmt.Println(len(id), d.Snowflake.Machine, d.Snowflake.Sequence)

	audit, _ := rt.Next(ctx, "audit") // such as 20260101000000123-0000007-00000
	fmt.Println(len(audit), audit[17:])
	// Output:
	// 15 7 0
	// 31 -0000007-00000
}
