package mongostore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The collections of a store, in the database given to New.
const (
	RangeCollection = "cosid_range"
	SlotCollection  = "cosid_slot"
)

var (
	// ErrWeakWriteConcern means the store was asked to write with a write concern
	// that does not wait for a majority of the replica set: an acknowledged
	// reservation could be rolled back by a failover and handed out again.
	ErrWeakWriteConcern = errors.New("write concern weaker than majority")
	// ErrCorrupt means a document of the store's collections holds fields the store
	// never writes: the store refuses to guess what they meant.
	ErrCorrupt = errors.New("a document holds fields the store did not write")
)

// Store is a store.RangeStore and a store.SlotLeaseStore on a MongoDB database. It is
// safe for concurrent use, also by many processes sharing one database.
type Store struct {
	db      *mongo.Database
	owned   bool // Close disconnects db's client
	ranges  *mongo.Collection
	slots   *mongo.Collection
	timeout time.Duration
	offset  *ClockOffset // tests only: moves the store clock
	name    string       // "mongostore(db)", for errors
	closed  atomic.Bool
	gate    gate // which server it is (gate.go)
}

var (
	_ store.RangeStore     = (*Store)(nil)
	_ store.SlotLeaseStore = (*Store)(nil)
	_ store.Timeouter      = (*Store)(nil)
)

// New returns a Store on db, whose client the application owns: Close leaves it
// connected. The store writes with write concern majority and j: true, whatever
// db's own is, unless WithWeakWriteConcern says otherwise. New does no I/O, so that a
// program starts while the server is down; the first call that cannot reach it fails
// within the store's timeout. The first call, and the first after a failed one,
// checks the server first: FerretDB is refused (ErrFerretDB) unless WithFerretDB.
func New(db *mongo.Database, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("mongostore: %w: nil *mongo.Database", store.ErrInvalidArgument)
	}
	return newStore(db, false, opts)
}

func newStore(db *mongo.Database, owned bool, opts []Option) (*Store, error) {
	c := config{timeout: DefaultTimeout, wc: majority(), logger: slog.Default()}
	for _, o := range opts {
		o(&c)
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("mongostore: %w: timeout %v, want > 0", store.ErrInvalidArgument, c.timeout)
	}
	if err := checkWriteConcern(c.wc); err != nil {
		return nil, fmt.Errorf("mongostore: %w", err)
	}
	if c.offset == nil {
		c.offset = new(ClockOffset)
	}
	co := options.Collection().SetWriteConcern(c.wc)
	s := &Store{
		db:      db,
		owned:   owned,
		ranges:  db.Collection(RangeCollection, co),
		slots:   db.Collection(SlotCollection, co),
		timeout: c.timeout,
		offset:  c.offset,
		name:    fmt.Sprintf("mongostore(%s)", db.Name()),
		gate:    gate{ferret: c.ferret, logger: c.logger},
	}
	s.gate.stale.Store(true)
	return s, nil
}

// Timeout implements store.Timeouter: every call of the store ends within it.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Close implements store.RangeStore. It disconnects the client when the
// configuration connected it; a database given to New stays connected.
func (s *Store) Close() error {
	if s.closed.Swap(true) || !s.owned {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	return s.db.Client().Disconnect(ctx)
}

// begin bounds ctx by the store's timeout, unless its deadline comes sooner.
func (s *Store) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return ctx, func() {}, store.ErrClosed
	}
	ctx, cancel := storekit.BoundCall(ctx, s.timeout)
	if err := s.gate.check(ctx, s.db, s.name); err != nil {
		cancel()
		return ctx, func() {}, err
	}
	return ctx, cancel, nil
}

// failed wraps err with what failed and the store.
func (s *Store) failed(what string, err error) error {
	s.gate.failedOp(err)
	return fmt.Errorf("%s: %s: %w", s.name, what, err)
}

// now reads the store clock: the localTime of the server's answer to hello, in
// epoch milliseconds (moved by the test offset).
func (s *Store) now(ctx context.Context) (int64, error) {
	var hello struct {
		LocalTime bson.DateTime `bson:"localTime"`
	}
	if err := s.db.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return 0, fmt.Errorf("reading the store clock (hello): %w", err)
	}
	if hello.LocalTime == 0 {
		return 0, errors.New("reading the store clock: the server's hello has no localTime")
	}
	return int64(hello.LocalTime) + s.offset.ms.Load(), nil
}
