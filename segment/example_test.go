package segment_test

import (
	"fmt"
	"log"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/memstore"
)

func ExampleNew() {
	st := memstore.New() // in production: a sqlstore, redisstore, … shared by every instance
	defer st.Close()

	g, err := segment.New(st, "app/order", segment.DefaultBatchPolicy())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	for range 3 {
		id, err := g.Next()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id)
	}
	// Output:
	// 1
	// 2
	// 3
}

func ExampleGenerator_NextRange() {
	st := memstore.New()
	defer st.Close()
	g, err := segment.New(st, "app/line-item", segment.DefaultBatchPolicy())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	r, err := g.NextRange(50) // ids for a bulk insert of 50 rows
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r, r.Len())
	// Output: [1, 51) 50
}
