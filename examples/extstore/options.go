package extstore

import "time"

// DefaultTimeout bounds every call, the wait for the lock included, unless
// WithTimeout sets another.
const DefaultTimeout = 2 * time.Second

// Option configures a Store.
type Option func(*Store)

// WithTimeout bounds every call by d instead of DefaultTimeout.
func WithTimeout(d time.Duration) Option { return func(s *Store) { s.timeout = d } }

// WithClock sets the store clock, which judges lease expiry and stamps
// Lease.StoreNow (default time.Now). Every Store on one file must read the same
// clock: tests pass a fake one to move store time without waiting.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }
