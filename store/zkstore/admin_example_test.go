package zkstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/zkstore"
)

// List the range keys under a prefix in byte order, a page at a time, and raise
// one of them past ids handed out elsewhere, as an operator's tool would.
func ExampleStore_Keys() {
	conn, _, err := zk.Connect([]string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	st, err := zkstore.New(conn, zkstore.WithRoot("/app/cosid"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for k, err := range store.AllKeys(ctx, st, "orders/", 1000) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(k.Key, k.Next, k.Sealed)
	}
	raised, err := st.RaiseTo(ctx, "orders/eu", 5_000_000)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(raised.Before, raised.After)
}
