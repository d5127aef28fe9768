package mongostore_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
)

// watched is a client whose commands and replies a test reads.
type watched struct {
	mu       sync.Mutex
	commands []bson.Raw
	replies  map[string][]bson.Raw // by command name
}

// watch returns a client of uri, with the client options of mod, that records its
// commands and replies.
func watch(t *testing.T, uri string, mod func(*options.ClientOptions)) (*mongo.Client, *watched) {
	t.Helper()
	w := &watched{replies: map[string][]bson.Raw{}}
	co := options.Client().ApplyURI(uri).SetMonitor(&event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.commands = append(w.commands, slices.Clone(e.Command))
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.replies[e.CommandName] = append(w.replies[e.CommandName], slices.Clone(e.Reply))
		},
	})
	if mod != nil {
		mod(co)
	}
	c, err := mongo.Connect(co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c, w
}

// TestWriteConcern_MajorityOnEveryWrite checks that every write of the store asks
// for write concern majority with j: true, though the client's own is w=1, and that New refuses
// an unacknowledged write concern even when told to accept a weak one.
func TestWriteConcern_MajorityOnEveryWrite(t *testing.T) {
	uri := server(t)
	db := testDatabase(t, uri)
	client, w := watch(t, uri, func(co *options.ClientOptions) { co.SetWriteConcern(writeconcern.W1()) })
	st, err := mongostore.New(client.Database(db), mongostore.WithTimeout(testTimeout), mongostore.WithFerretDB(), mongostore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "k", 1, 0); err != nil { // an insert
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "k", 1, 0); err != nil { // a findAndModify
		t.Fatal(err)
	}
	if err := st.Seal(t.Context(), "k"); err != nil { // an update
		t.Fatal(err)
	}
	req := store.LeaseRequest{Namespace: "wc", OwnerKey: "a", Limit: 2, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	l, err := st.Acquire(t.Context(), req) // inserts
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Release(t.Context(), l, l.Floor); err != nil { // an update
		t.Fatal(err)
	}
	writes := 0
	w.mu.Lock()
	for _, cmd := range w.commands {
		name := cmd.Index(0).Key()
		if name != "insert" && name != "update" && name != "findAndModify" {
			continue
		}
		writes++
		if got, _ := cmd.Lookup("writeConcern", "w").StringValueOK(); got != "majority" {
			t.Errorf("%s was sent with writeConcern %v, want w: majority", name, cmd.Lookup("writeConcern"))
		}
		if j, ok := cmd.Lookup("writeConcern", "j").BooleanOK(); !ok || !j {
			t.Errorf("%s was sent with writeConcern %v, want j: true", name, cmd.Lookup("writeConcern"))
		}
	}
	w.mu.Unlock()
	if writes < 5 {
		t.Errorf("saw %d writes, want at least 5", writes)
	}
	for _, wc := range []*writeconcern.WriteConcern{writeconcern.Unacknowledged(), {W: -1}, nil} {
		if _, err := mongostore.New(client.Database(db), mongostore.WithWeakWriteConcern(wc)); !errors.Is(err, mongostore.ErrWeakWriteConcern) || !errors.Is(err, store.ErrInvalidArgument) {
			t.Errorf("New with write concern %+v: %v, want ErrWeakWriteConcern", wc, err)
		}
	}
	if _, err := mongostore.New(nil); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("New(nil): %v, want ErrInvalidArgument", err)
	}
	if _, err := mongostore.New(client.Database(db), mongostore.WithTimeout(0)); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("New with timeout 0: %v, want ErrInvalidArgument", err)
	}
}

// TestStoreClock_L6_HelloLocalTime checks where the store clock comes from: every
// Acquire and Renew asks the server hello, and answers with the localTime of its
// reply (moved by the test offset), never with the client's clock.
func TestStoreClock_L6_HelloLocalTime(t *testing.T) {
	uri := server(t)
	db := testDatabase(t, uri)
	client, w := watch(t, uri, nil)
	offset := new(mongostore.ClockOffset)
	st, err := mongostore.New(client.Database(db), mongostore.WithTimeout(testTimeout), mongostore.WithClockOffset(offset), mongostore.WithFerretDB(), mongostore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	lastHello := func() int64 {
		t.Helper()
		w.mu.Lock()
		defer w.mu.Unlock()
		replies := w.replies["hello"]
		if len(replies) == 0 {
			t.Fatal("the store sent no hello")
		}
		dt, ok := replies[len(replies)-1].Lookup("localTime").DateTimeOK()
		if !ok {
			t.Fatal("the last hello's reply has no localTime")
		}
		w.replies["hello"] = nil
		return dt
	}
	req := store.LeaseRequest{Namespace: "clock", OwnerKey: "a", Limit: 4, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	for _, move := range []time.Duration{0, 0, time.Hour, -3 * time.Hour} {
		offset.Move(move)
		l, err := st.Acquire(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := l.StoreNow.UnixMilli(), lastHello()+offset.Ms(); got != want {
			t.Errorf("Acquire: StoreNow %d, want hello's localTime plus the offset, %d", got, want)
		}
		if got, want := l.ExpiresAt.Sub(l.StoreNow), time.Minute; got != want {
			t.Errorf("Acquire: ExpiresAt is %v after StoreNow, want the TTL %v", got, want)
		}
		r, err := st.Renew(t.Context(), l, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := r.StoreNow.UnixMilli(), lastHello()+offset.Ms(); got != want {
			t.Errorf("Renew: StoreNow %d, want hello's localTime plus the offset, %d", got, want)
		}
		if err := st.Release(t.Context(), r, r.Floor); err != nil {
			t.Fatal(err)
		}
	}
}
