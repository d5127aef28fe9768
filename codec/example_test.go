package codec_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
)

func ExampleNew() {
	c, err := codec.New(codec.Radix(62, 0, false)) // short texts for Snowflake-sized ids
	if err != nil {
		log.Fatal(err)
	}
	text, err := c.Encode(302_231_454_903_657_293)
	if err != nil {
		log.Fatal(err)
	}
	id, err := c.Decode(text)
	fmt.Println(text, id, err)
	// Output: MKDqFT6ORZ 302231454903657293 <nil>
}

func ExampleNewGrouped() {
	// The seed's bill numbers: codec: [date-prefix {delimiter: "-"}, radix {radix: 10, width: 6, pad-start: true}]
	bill, err := codec.NewGrouped(segment.YearMonthDay,
		codec.DatePrefix("-", ""),
		codec.Radix(10, 6, true))
	if err != nil {
		log.Fatal(err)
	}
	text, err := bill.Encode(segment.GroupedID{Period: "20261027", Value: 42})
	if err != nil {
		log.Fatal(err)
	}
	id, err := bill.Decode(text)
	fmt.Println(text, id, err)
	// Output: 20261027-000042 20261027/42 <nil>
}

func ExampleNewGrouped_afterPrefix() {
	// A period item places the period after a business prefix.
	c, err := codec.NewGrouped(segment.YearMonthDay,
		codec.Prefix("BIZ-"),
		codec.Period("-"),
		codec.ToString(8, true))
	if err != nil {
		log.Fatal(err)
	}
	text, _ := c.Encode(segment.GroupedID{Period: "20261027", Value: 42})
	fmt.Println(text)
	// Output: BIZ-20261027-00000042
}

func ExampleDatePrefix() {
	c, err := codec.NewGrouped(segment.YearMonthDay, codec.DatePrefix("/", "yyyy-MM-dd"))
	if err != nil {
		log.Fatal(err)
	}
	text, _ := c.Encode(segment.GroupedID{Period: "20261027", Value: 42})
	id, _ := c.Decode(text)
	fmt.Println(text, id.Period)
	// Output: 2026-10-27/42 20261027
}

func ExampleSyntaxError() {
	bill, err := codec.NewGrouped(segment.YearMonthDay, codec.DatePrefix("-", ""), codec.Radix(10, 6, true))
	if err != nil {
		log.Fatal(err)
	}
	_, err = bill.Decode("20261032-000042")
	var se *codec.SyntaxError
	if errors.As(err, &se) {
		fmt.Printf("%s\n%*s^ %s\n", se.Text, se.Offset, "", se.Reason)
	}
	// Output:
	// 20261032-000042
	//       ^ day 32 is not in 01–31, the days of 2026-10
}

func ExampleItemError() {
	// A configuration layer reports the YAML path of the item at fault.
	_, err := codec.NewGrouped(segment.YearMonth,
		codec.DatePrefix("-", "yyyy-MM-dd"),
		codec.Radix(10, 6, true))
	var ie *codec.ItemError
	if errors.As(err, &ie) {
		fmt.Printf("cosid.generators.bill.codec[%d].%s.%s: %s\n", ie.Index, ie.Item, ie.Field, ie.Reason)
	}
	// Output: cosid.generators.bill.codec[0].date-prefix.pattern: "yyyy-MM-dd" has dd, but a YEAR_MONTH period has no day; want yyyy or yy, and MM
}
