package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// Open a store on a Redis that keeps every write (appendonly yes, appendfsync
// always), reserve a range, and lease a slot for a snowflake generator.
func ExampleNew() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6380", ContextTimeoutEnabled: true})
	defer client.Close()
	st, err := redisstore.New(client, redisstore.WithPrefix("app:"), redisstore.WithTimeout(2*time.Second))
	if err != nil {
		log.Fatal(err) // such as ErrVolatileServer, naming the settings at fault
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
