package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var (
	// ErrContention means a reservation or a seal lost its compare-and-swap to other
	// processes until the store's timeout ran out: the key is written by more
	// processes than it can serve. Nothing was reserved.
	ErrContention = errors.New("the key changed under every attempt")
	// ErrCorrupt means a key under the store's prefix holds a value the store never
	// writes: the store refuses to guess what it meant.
	ErrCorrupt = errors.New("a key holds a value the store did not write")
)

// Store is a store.RangeStore and a store.SlotLeaseStore on an etcd v3 cluster. It is
// safe for concurrent use, also by many processes sharing one cluster.
type Store struct {
	client  *clientv3.Client
	owned   bool // Close closes client
	prefix  string
	timeout time.Duration
	logger  *slog.Logger
	now     func() time.Time // the clock of the answers' times, never of expiry
	name    string           // "etcdstore(/cosid/)", for errors

	keys storekit.KeyTurns[keyState] // the ranges reserved through this store, by key

	misses atomic.Int64 // compare-and-swaps of ranges that found the key changed
	closed atomic.Bool
	gate   gate // the members' releases (gate.go)
}

var (
	_ store.RangeStore     = (*Store)(nil)
	_ store.SlotLeaseStore = (*Store)(nil)
	_ store.Timeouter      = (*Store)(nil)
)

// New returns a Store on client, which the application owns: Close leaves it open.
// New does no I/O, so that a program starts while the cluster is down; the first
// call that cannot reach it fails within the store's timeout. The first call, one
// after failed ones (at most every 5 s), and one a minute check the members' releases first
// (Status of every endpoint): 3.5.0 to 3.5.2, which can lose acknowledged writes
// after a crash, are refused (ErrUnsafeVersion) unless WithUnsafeVersion.
func New(client *clientv3.Client, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, fmt.Errorf("etcdstore: %w: nil *clientv3.Client", store.ErrInvalidArgument)
	}
	return newStore(client, false, opts)
}

func newStore(client *clientv3.Client, owned bool, opts []Option) (*Store, error) {
	c := config{prefix: DefaultPrefix, timeout: DefaultTimeout, logger: slog.Default(), now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	if err := checkPrefix(c.prefix); err != nil {
		return nil, fmt.Errorf("etcdstore: %w", err)
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("etcdstore: %w: timeout %v, want > 0", store.ErrInvalidArgument, c.timeout)
	}
	s := &Store{
		client:  client,
		owned:   owned,
		prefix:  c.prefix,
		timeout: c.timeout,
		logger:  c.logger,
		now:     c.now,
		name:    fmt.Sprintf("etcdstore(%s)", c.prefix),
		gate:    gate{allow: c.unsafeVersion},
	}
	return s, nil
}

// Prefix returns the prefix of the store's keys.
func (s *Store) Prefix() string { return s.prefix }

// Timeout implements store.Timeouter: every call of the store ends within it.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Close implements store.RangeStore. It closes the client when the configuration
// opened it; a client given to New stays open.
func (s *Store) Close() error {
	if s.closed.Swap(true) || !s.owned {
		return nil
	}
	return s.client.Close()
}

// begin bounds ctx by the store's timeout, unless its deadline comes sooner.
func (s *Store) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return ctx, func() {}, store.ErrClosed
	}
	ctx, cancel := storekit.BoundCall(ctx, s.timeout)
	if err := s.check(ctx); err != nil {
		cancel()
		return ctx, func() {}, err
	}
	return ctx, cancel, nil
}

// failed wraps err with what failed and the store. When ctx ended, the error also
// wraps ctx.Err(), whatever gRPC made of the cancellation.
func (s *Store) failed(ctx context.Context, what string, err error) error {
	s.gate.failedCall(err)
	return fmt.Errorf("%s: %s: %w", s.name, what, storekit.CallErr(ctx, err))
}
