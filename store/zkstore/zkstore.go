package zkstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var (
	// ErrContention means a reservation or a seal lost its compare-and-swap to other
	// processes maxAttempts times in a row: the key is written by more processes than
	// it can serve. Nothing was reserved.
	ErrContention = errors.New("the znode changed under every attempt")
	// ErrCorrupt means a znode under the store's root holds data the store never
	// writes: the store refuses to guess what it meant.
	ErrCorrupt = errors.New("a znode holds data the store did not write")
)

// Store is a store.RangeStore, a store.SlotLeaseStore and a store.Admin on a ZooKeeper
// ensemble. It is safe for concurrent use, also by many processes sharing one ensemble.
type Store struct {
	conn    *zk.Conn
	owned   bool // Close closes conn
	root    string
	timeout time.Duration
	offset  *ClockOffset // tests only: moves the store clock
	name    string       // "zkstore(/cosid)", for errors

	keys storekit.KeyTurns[keyState] // the ranges reserved through this store, by key
	list atomic.Pointer[listing]     // the last listing of the range znodes (admin.go)

	closed atomic.Bool
}

var (
	_ store.RangeStore     = (*Store)(nil)
	_ store.SlotLeaseStore = (*Store)(nil)
	_ store.Timeouter      = (*Store)(nil)
)

// New returns a Store on conn, which the application owns: Close leaves it open.
// New does no I/O, so that a program starts while the ensemble is down; the first
// call that cannot reach it fails within the store's timeout.
func New(conn *zk.Conn, opts ...Option) (*Store, error) {
	if conn == nil {
		return nil, fmt.Errorf("zkstore: %w: nil *zk.Conn", store.ErrInvalidArgument)
	}
	return newStore(conn, false, opts)
}

func newStore(conn *zk.Conn, owned bool, opts []Option) (*Store, error) {
	c := config{root: DefaultRoot, timeout: DefaultTimeout}
	for _, o := range opts {
		o(&c)
	}
	if err := checkRoot(c.root); err != nil {
		return nil, fmt.Errorf("zkstore: %w", err)
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("zkstore: %w: timeout %v, want > 0", store.ErrInvalidArgument, c.timeout)
	}
	if c.offset == nil {
		c.offset = new(ClockOffset)
	}
	return &Store{
		conn:    conn,
		owned:   owned,
		root:    c.root,
		timeout: c.timeout,
		offset:  c.offset,
		name:    fmt.Sprintf("zkstore(%s)", c.root),
	}, nil
}

// Root returns the znode under which the store keeps its nodes.
func (s *Store) Root() string { return s.root }

// Timeout implements store.Timeouter: every call of the store ends within it.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Close implements store.RangeStore. It closes the connection when the configuration
// opened it; a connection given to New stays open.
func (s *Store) Close() error {
	if s.closed.Swap(true) || !s.owned {
		return nil
	}
	s.conn.Close()
	return nil
}

// begin bounds ctx by the store's timeout, unless its deadline comes sooner.
func (s *Store) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return ctx, func() {}, store.ErrClosed
	}
	ctx, cancel := storekit.BoundCall(ctx, s.timeout)
	return ctx, cancel, nil
}

// failed wraps err with what failed and the store.
func (s *Store) failed(what string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.name, what, err)
}

// call runs f, a request of the ZooKeeper client, which takes no context, and
// returns its answer or ctx's error, whichever comes first. A request abandoned at
// ctx's end may still reach the server: callers treat its outcome as unknown, and
// every write the store makes is a compare-and-swap, so a late one changes nothing
// that a later call relied on.
func call[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, err := f()
		ch <- answer{v, err}
	}()
	select {
	case a := <-ch:
		return a.v, a.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// get reads the znode at path; a missing one is zk.ErrNoNode.
func (s *Store) get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	type got struct {
		data []byte
		stat *zk.Stat
	}
	g, err := call(ctx, func() (got, error) {
		data, stat, err := s.conn.Get(path)
		return got{data, stat}, err
	})
	return g.data, g.stat, err
}

// set writes data to the znode at path if it is at version (-1: any).
func (s *Store) set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	return call(ctx, func() (*zk.Stat, error) { return s.conn.Set(path, data, version) })
}

// create makes a persistent znode at path holding data, making its missing parents
// first; an existing znode at path is zk.ErrNodeExists.
func (s *Store) create(ctx context.Context, path string, data []byte) error {
	_, err := call(ctx, func() (string, error) { return s.conn.Create(path, data, 0, zk.WorldACL(zk.PermAll)) })
	if !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	parent := path[:strings.LastIndexByte(path, '/')]
	if err := s.create(ctx, parent, nil); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	_, err = call(ctx, func() (string, error) { return s.conn.Create(path, data, 0, zk.WorldACL(zk.PermAll)) })
	return err
}

// now reads the store clock: it writes the clock znode and returns the mtime the
// ZooKeeper leader gave that write, in epoch milliseconds (moved by the test offset).
func (s *Store) now(ctx context.Context) (int64, error) {
	path := s.root + "/clock"
	stat, err := s.set(ctx, path, nil, -1)
	if errors.Is(err, zk.ErrNoNode) {
		if err = s.create(ctx, path, nil); err == nil || errors.Is(err, zk.ErrNodeExists) {
			stat, err = s.set(ctx, path, nil, -1)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("reading the store clock (a write of %s): %w", path, err)
	}
	return stat.Mtime + s.offset.ms.Load(), nil
}
