// Package backoff is the retry backoff of the runtime's stores and generators and of
// the segment generators' reservations: after a failure, callers fail fast until a
// retry time, whose wait doubles from Min up to Max while failures go on, and a
// success ends it. One implementation, so that every "retrying in …" error reads
// the same and every retry follows the same curve.
package backoff

import (
	"fmt"
	"time"
)

// Min and Max bound the wait after a failure: Min after the first of a row, twice
// the previous wait after each other, at most Max.
const (
	Min = 100 * time.Millisecond
	Max = 5 * time.Second
)

// Backoff is the failures in a row of one thing that is tried again, and when the
// next attempt may start. The zero value has no failure. It is not safe for
// concurrent use: the lock of its owner guards it.
type Backoff struct {
	count   int       // failures in a row
	since   time.Time // the first of them
	last    error     // the latest
	wait    time.Duration
	retryAt time.Time
}

// Fail records err, a failure at now, and returns the wait before the next
// attempt.
func (b *Backoff) Fail(err error, now time.Time) time.Duration {
	if b.count == 0 {
		b.since = now
	}
	b.count++
	b.last = err
	b.wait = min(max(2*b.wait, Min), Max)
	b.retryAt = now.Add(b.wait)
	return b.wait
}

// Err returns nil when an attempt may start at now, and before then an error that
// says when the next one comes, after how many failures since when, and wraps the
// latest: "retrying in 400ms (3 failures since 10:04:05): …".
func (b *Backoff) Err(now time.Time) error {
	if !now.Before(b.retryAt) {
		return nil
	}
	failures := "failures"
	if b.count == 1 {
		failures = "failure"
	}
	return fmt.Errorf("retrying in %v (%d %s since %s): %w",
		b.retryAt.Sub(now).Round(time.Millisecond), b.count, failures, b.since.Format(time.TimeOnly), b.last)
}

// Reset ends the failures in a row, after a success, and returns how many they were.
func (b *Backoff) Reset() int {
	n := b.count
	*b = Backoff{}
	return n
}
