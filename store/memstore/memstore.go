package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
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

// rangeRow is a range key: the value its next Reserve starts at.
type rangeRow struct {
	next   int64
	sealed bool
}

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

// Close implements store.RangeStore. Later calls of s fail with store.ErrClosed; its
// siblings stay open.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

// check refuses a call on an ended ctx or a closed store.
func (s *Store) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	if s.closed.Load() {
		return fmt.Errorf("memstore: %w", store.ErrClosed)
	}
	return nil
}
