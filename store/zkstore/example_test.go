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

// Open a store on a ZooKeeper ensemble the application connected to, reserve a
// range, and lease a slot for a snowflake generator.
func ExampleNew() {
	conn, _, err := zk.Connect([]string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	st, err := zkstore.New(conn, zkstore.WithRoot("/app/cosid"), zkstore.WithTimeout(2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	r, err := st.Reserve(ctx, "order", 100, 1)
	if err != nil {
		log.Fatal(err)
	}
	l, err := st.Acquire(ctx, store.LeaseRequest{Namespace: "events", OwnerKey: "pod-a", Limit: 1024,
		Tolerance: time.Second, TTL: time.Minute, Preferred: -1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r, l.Slot)
	// An operator's tool lists the keys in byte order, a page at a time (store.Admin).
	for k, err := range store.AllKeys(ctx, st, "order", 1000) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(k.Key, k.Next, k.Sealed)
	}
}
