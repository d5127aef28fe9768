// Package memstore is an in-process store: ranges and slot leases kept in memory, for
// tests and for applications that run as a single process. Nothing survives a restart,
// so ids from a memstore are unique only within the process that made them.
package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/storekit"
)

// Store is an in-memory store.RangeStore and store.SlotLeaseStore. Its zero value is
// not usable; call New.
type Store struct {
	data   *data
	closed atomic.Bool
}

// data is what Siblings share: the backend a second process would see.
type data struct {
	mu         sync.Mutex
	ranges     map[string]*rangeRow
	namespaces map[string]*namespace
	now        func() time.Time
}

type rangeRow struct {
	next   int64
	sealed bool
}

// Option configures a Store.
type Option func(*data)

// WithClock sets the store clock, which judges lease expiry and stamps Lease.StoreNow
// (default time.Now). Tests pass a fake clock to move store time without waiting.
func WithClock(now func() time.Time) Option { return func(d *data) { d.now = now } }

// New returns an empty Store.
func New(opts ...Option) *Store {
	d := &data{ranges: map[string]*rangeRow{}, namespaces: map[string]*namespace{}, now: time.Now}
	for _, o := range opts {
		o(d)
	}
	return &Store{data: d}
}

// Sibling returns a second Store on the same data, as a second process on one backend
// would see it. Closing one leaves the other open.
func (s *Store) Sibling() *Store { return &Store{data: s.data} }

// Reserve implements store.RangeStore.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := s.check(ctx); err != nil {
		return store.Range{}, err
	}
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("memstore: reserve: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	row := d.ranges[key]
	found := row != nil
	if !found {
		row = &rangeRow{}
	}
	r, err := storekit.NextRange(found, row.sealed, row.next, size, initialOffset)
	if err != nil {
		return store.Range{}, fmt.Errorf("memstore: reserve %q: %w", key, err)
	}
	if !found {
		d.ranges[key] = row
	}
	row.next = r.End
	return r, nil
}

// Seal implements store.RangeStore.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("memstore: seal: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	if row := d.ranges[key]; row != nil {
		row.sealed = true
	} else {
		d.ranges[key] = &rangeRow{sealed: true}
	}
	return nil
}

// Close implements store.RangeStore. Later calls of s fail with store.ErrClosed; its
// siblings stay open.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

func (s *Store) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	if s.closed.Load() {
		return fmt.Errorf("memstore: %w", store.ErrClosed)
	}
	return nil
}
