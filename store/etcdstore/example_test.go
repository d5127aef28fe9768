package etcdstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/etcdstore"
)

// A segment generator on an etcd cluster: the application makes the client and
// keeps it; the store puts its keys under a prefix of its own. The example needs a
// cluster on 127.0.0.1:2379, so it is compiled, not run.
func ExampleNew() {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	st, err := etcdstore.New(client, etcdstore.WithPrefix("/shop/ids/"), etcdstore.WithTimeout(2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	r, err := st.Reserve(context.Background(), "order", 100, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("reserved", r) // the key /shop/ids/order/next now holds r.End

	g, err := segment.New(st, "order", segment.DefaultBatchPolicy())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	id, err := g.Next()
	fmt.Println(id, err)
}
