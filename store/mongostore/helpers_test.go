package mongostore_test

import (
	"context"
	"crypto/rand"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/mongostore"
)

// testTimeout is the timeout of the tests' stores: generous, because no test of the
// kit checks it and the machine is shared.
const testTimeout = 20 * time.Second

// server returns the URI of the test MongoDB server.
func server(t testing.TB) string { return testenv.Server(t, testenv.MongoDB) }

// connect returns a client of its own of uri that t disconnects.
func connect(t testing.TB, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatalf("mongo.Connect(%s): %v", uri, err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

// testDatabase returns the name of a database unique to this run, and drops it on
// uri when t ends.
func testDatabase(t testing.TB, uri string) string {
	t.Helper()
	name := "cosidtest_" + strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() {
		c, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			return
		}
		defer c.Disconnect(context.Background())
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		c.Database(name).Drop(ctx)
	})
	return name
}

// openStore opens a store on database db through a client of its own of uri,
// closed when t ends.
func openStore(t testing.TB, uri, db string, opts ...mongostore.Option) *mongostore.Store {
	t.Helper()
	st, err := mongostore.New(connect(t, uri).Database(db), append([]mongostore.Option{mongostore.WithTimeout(testTimeout), mongostore.WithFerretDB(), mongostore.WithLogger(nil)}, opts...)...)
	if err != nil {
		t.Fatalf("New(%s): %v", uri, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// discard returns a logger that logs nothing.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
