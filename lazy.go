package cosid

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/internal/backoff"
)

// errClosed is returned by what a closed Runtime is asked for.
var errClosed = errors.New("runtime closed")

// lazy is a value opened on first use: a store, or a generator on a store. One
// attempt runs at a time and the callers that arrive meanwhile wait for it; after a
// failure, callers get the failure at once until the backoff ends. The value, once
// there, is read with one atomic load.
type lazy[T any] struct {
	what  string // for errors: `store "db"`
	now   func() time.Time
	open  func(context.Context) (*T, error)
	close func(*T) error

	v atomic.Pointer[T]

	mu       sync.Mutex
	opening  chan struct{} // closed when the attempt in flight ends; nil when none
	closed   bool
	failures backoff.Backoff // between failed attempts; a success ends it for every caller
}

// get returns the value, opening it when there is none yet. Its errors wrap
// ErrUnavailable (or ErrConfig) and the cause, and say what was unavailable.
func (l *lazy[T]) get(ctx context.Context) (*T, error) {
	if v := l.v.Load(); v != nil {
		return v, nil
	}
	l.mu.Lock()
	for l.opening != nil {
		ch := l.opening
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, l.unavailable(fmt.Errorf("waiting for it to open: %w", ctx.Err()))
		}
		l.mu.Lock()
	}
	if v := l.v.Load(); v != nil {
		l.mu.Unlock()
		return v, nil
	}
	if l.closed {
		l.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", l.what, errClosed)
	}
	if err := l.failures.Err(l.now()); err != nil {
		l.mu.Unlock()
		return nil, l.retryErr(err)
	}
	ch := make(chan struct{})
	l.opening = ch
	l.mu.Unlock()

	v, err := l.open(ctx)

	l.mu.Lock()
	defer l.mu.Unlock()
	l.opening = nil
	close(ch)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// The caller gave up, not the store: the next caller tries at once.
		return nil, l.unavailable(err)
	}
	if err != nil {
		l.failures.Fail(err, l.now())
		if errors.Is(err, ErrConfig) || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotSetUp) {
			return nil, fmt.Errorf("%s: %w", l.what, err)
		}
		return nil, l.unavailable(err)
	}
	if l.closed {
		return nil, errors.Join(fmt.Errorf("%s: %w", l.what, errClosed), l.close(v))
	}
	l.failures.Reset()
	l.v.Store(v)
	return v, nil
}

func (l *lazy[T]) unavailable(err error) error {
	return fmt.Errorf("%s %w: %w", l.what, ErrUnavailable, err)
}

// retryErr says why a caller gets no attempt during the backoff: err, which
// wraps the latest failure.
func (l *lazy[T]) retryErr(err error) error {
	if errors.Is(err, ErrNotSetUp) {
		// Not an outage: the store answered, and waiting does not set it up.
		return fmt.Errorf("%s: %w", l.what, err)
	}
	return l.unavailable(err)
}

// reset drops v, when it is still the value, so that the next get opens a new one;
// it closes v.
func (l *lazy[T]) reset(v *T) error {
	if !l.v.CompareAndSwap(v, nil) {
		return nil
	}
	return l.close(v)
}

// shut closes the value, if there is one, and makes every later get fail.
func (l *lazy[T]) shut() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	if v := l.v.Swap(nil); v != nil {
		return l.close(v)
	}
	return nil
}
