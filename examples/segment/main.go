// Command segment prints ids of a segment generator on the in-memory store: the
// smallest complete use of CosId.
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/memstore"
)

func main() {
	n := flag.Int("n", 10, "how many ids to print")
	flag.Parse()

	st := memstore.New()
	defer st.Close()
	g, err := segment.New(st, "example/order", segment.DefaultBatchPolicy())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	for range *n {
		id, err := g.Next()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id)
	}
}
