package mongostore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// ErrFerretDB means the server is FerretDB (its buildInfo names a ferretdbVersion).
// FerretDB v1 runs an update as a query followed by an UPDATE of the _ids it found,
// which checks the filter no more: two concurrent reservations of one key can both
// add to the same value (measured: two processes got 96 overlapping ranges).
// WithFerretDB (options: { allowFerretDB: true }) accepts it.
var ErrFerretDB = errors.New("the server is FerretDB, whose updates are not atomic")

// gate checks what server the store writes to. New does no I/O, so the check runs
// before the first operation, and again before the operation after one that failed
// (a failover, a reconnect to another server behind the same address), until one
// passes.
type gate struct {
	stale  atomic.Bool // check before the next operation
	mu     sync.Mutex  // one check at a time
	ferret bool        // WithFerretDB
	warned bool
	logger *slog.Logger
}

// check runs the check when it is due, on db.
func (g *gate) check(ctx context.Context, db *mongo.Database, name string) error {
	if !g.stale.Load() {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stale.Load() {
		return nil
	}
	var info bson.M
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return fmt.Errorf("checking the server (buildInfo): %w", err)
	}
	if v, ok := info["ferretdbVersion"]; ok {
		if !g.ferret {
			return fmt.Errorf("%w (ferretdbVersion %v): concurrent reservations of one key can get the same ids. Run the store on MongoDB (a replica set, write concern majority), or accept the risk where one caller at a time writes each key with options: { allowFerretDB: true } (WithFerretDB)", ErrFerretDB, v)
		}
		if !g.warned {
			g.warned = true
			g.logger.Warn("mongostore: allowFerretDB: concurrent reservations of one key can get the same ids", "store", name, "ferretdbVersion", v)
		}
	}
	g.stale.Store(false)
	return nil
}

// failedOp makes the next operation check the server again, unless err is one of
// the store's own verdicts on a server it already checked.
func (g *gate) failedOp(err error) {
	var se mongo.ServerError
	if mongo.IsNetworkError(err) || mongo.IsTimeout(err) || errors.As(err, &se) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, mongo.ErrClientDisconnected) {
		g.stale.Store(true)
	}
}
