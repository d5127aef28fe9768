package cosid

import "time"

// WithClock sets the clock of the retry backoff, for tests.
func WithClock(now func() time.Time) Option { return func(o *runtimeOptions) { o.now = now } }
