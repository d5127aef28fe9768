package sqlstore

import (
	"time"

	"github.com/cosid-go/cosid/store/storekit"
)

// ClockOffset moves the store clock of the stores opened WithClockOffset on it, for
// the external tests (storetest.ClockMover).
type ClockOffset = clockOffset

// WithClockOffset makes a store read the database's clock moved by c.
var WithClockOffset = withClockOffset

// Move moves the clock by d, rounded up to a whole millisecond.
func (c *clockOffset) Move(d time.Duration) { c.ms.Add(storekit.MillisUp(d)) }

// OpenPool opens a pool as Open does, for the tests that share one among stores.
var OpenPool = openPool
