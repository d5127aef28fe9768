package mongostore

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/cosid-go/cosid/store"
)

// DefaultTimeout bounds every call of a store made without WithTimeout.
const DefaultTimeout = 2 * time.Second

// Option configures a Store.
type Option func(*config)

// config is what the options set, from the defaults that New starts with.
type config struct {
	timeout time.Duration
	wc      *writeconcern.WriteConcern
	offset  *ClockOffset
	ferret  bool // WithFerretDB
	logger  *slog.Logger
}

// WithTimeout bounds every call of the store, its retries included (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithWeakWriteConcern makes the store write with wc, such as writeconcern.W1(),
// instead of majority. It is the explicit opt-in that a weaker write concern needs,
// for a single server or a test: on a replica set a failover can roll back an
// acknowledged reservation and hand its values out again. An unacknowledged write
// concern (w: 0) is refused even so: the store must read what each write did.
func WithWeakWriteConcern(wc *writeconcern.WriteConcern) Option {
	return func(c *config) { c.wc = wc }
}

// majority is the store's write concern: acknowledged by a majority of the replica
// set, each in its journal (j: true), so that neither a failover nor a crash of the
// majority's members loses an acknowledged reservation.
func majority() *writeconcern.WriteConcern {
	wc := writeconcern.Majority()
	j := true
	wc.Journal = &j
	return wc
}

// checkWriteConcern refuses a write concern that does not acknowledge writes, or
// that is not valid.
func checkWriteConcern(wc *writeconcern.WriteConcern) error {
	if wc == nil || !wc.IsValid() || !wc.Acknowledged() || wc.W == 0 {
		return fmt.Errorf("%w: %w: write concern %+v does not acknowledge writes, or is not valid", store.ErrInvalidArgument, ErrWeakWriteConcern, wc)
	}
	return nil
}

// WithFerretDB makes the store accept a FerretDB server, whose updates are not
// atomic: processes that reserve one key at the same time can get the same ids. It
// is safe only where one caller at a time writes each key (a test that takes turns);
// the store logs a warning when it finds FerretDB.
func WithFerretDB() Option { return func(c *config) { c.ferret = true } }

// WithLogger sets the logger of the store's warnings, such as the one about an
// accepted FerretDB (default slog.Default()). A nil logger logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		c.logger = l
	}
}

// ClockOffset moves the store clock of the stores opened with it by a shared amount.
// It exists for tests of expiry (storetest.ClockMover), which would otherwise wait
// for the server's clock; the zero value moves nothing.
type ClockOffset struct{ ms atomic.Int64 }

// Move moves the clock by d, rounded down to a whole millisecond; back when d is
// negative.
func (c *ClockOffset) Move(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// WithClockOffset makes the store read the server's clock moved by c. It is for
// tests: every store of one test that shares c sees the same moved clock.
func WithClockOffset(c *ClockOffset) Option { return func(cfg *config) { cfg.offset = c } }
