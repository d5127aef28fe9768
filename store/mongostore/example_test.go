package mongostore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
)

// Open a store on a replica set's database, reserve a range, and lease a slot for a
// snowflake generator.
func ExampleNew() {
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://127.0.0.1:27017/?replicaSet=rs0"))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	st, err := mongostore.New(client.Database("app"), mongostore.WithTimeout(2*time.Second))
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
}
