package memstore

import "time"

// Option configures a Store.
type Option func(*data)

// WithClock sets the store clock, which judges lease expiry and stamps Lease.StoreNow
// (default time.Now). Tests pass a fake clock to move store time without waiting.
func WithClock(now func() time.Time) Option { return func(d *data) { d.now = now } }
