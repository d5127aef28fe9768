package extstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Store keeps ranges and slot leases in a JSON file. It implements
// store.RangeStore, store.SlotLeaseStore, store.Admin and store.Timeouter, and is
// safe for concurrent use, also by several Stores and processes on one file.
type Store struct {
	path    string
	lock    *os.File // the lock file: path + ".lock"
	timeout time.Duration
	now     func() time.Time
	turns   storekit.KeyTurns[struct{}] // the goroutines of this Store take turns at the lock
	closed  atomic.Bool
}

var (
	_ store.Admin          = (*Store)(nil)
	_ store.SlotLeaseStore = (*Store)(nil)
	_ store.Timeouter      = (*Store)(nil)
)

// Open returns a Store on the file at path, which it creates on its first write.
// It opens (or creates) the lock file path+".lock", and writes nothing else yet.
func Open(path string, opts ...Option) (*Store, error) {
	s := &Store{path: path, timeout: DefaultTimeout, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if s.timeout <= 0 {
		return nil, fmt.Errorf("extstore: %w: timeout %v, want > 0", store.ErrInvalidArgument, s.timeout)
	}
	lock, err := openLock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("extstore: %w", err)
	}
	s.lock = lock
	return s, nil
}

// Timeout implements store.Timeouter.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Close implements store.RangeStore: later calls fail with store.ErrClosed. A call
// already running ends first, since it holds its turn.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	turn, err := s.turns.Take(context.Background(), s.path)
	if err != nil {
		return err
	}
	defer turn.Give()
	return s.lock.Close()
}

// begin is the start of every call (storekit.BeginCall): ctx bounded by the
// store's timeout, or store.ErrClosed.
func (s *Store) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return ctx, func() {}, fmt.Errorf("extstore: %w", store.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return ctx, func() {}, err
	}
	ctx, cancel := storekit.BoundCall(ctx, s.timeout)
	return ctx, cancel, nil
}

// view runs read on the file's data under a shared lock.
func view[T any](ctx context.Context, s *Store, read func(d *data) (T, error)) (T, error) {
	return storekit.DoCall(ctx, s.begin, func(ctx context.Context) (T, error) {
		var v T
		err := s.locked(ctx, false, func() error {
			d, err := s.load()
			if err != nil {
				return err
			}
			v, err = read(d)
			return err
		})
		return v, err
	})
}

// update runs change on the file's data under an exclusive lock, and writes the
// data back, durably, when change returns write true and no error.
func update[T any](ctx context.Context, s *Store, change func(d *data) (v T, write bool, err error)) (T, error) {
	return storekit.DoCall(ctx, s.begin, func(ctx context.Context) (T, error) {
		var v T
		err := s.locked(ctx, true, func() error {
			d, err := s.load()
			if err != nil {
				return err
			}
			var write bool
			if v, write, err = change(d); err != nil || !write {
				return err
			}
			return s.save(d)
		})
		return v, err
	})
}

// locked runs f while this goroutine holds the Store's turn and the Store holds
// the file lock, exclusive or shared. The lock is taken by a goroutine of its own,
// since flock(2) cannot be canceled: when ctx ends first, locked returns, and that
// goroutine keeps the turn until it has the lock and gives both back, so that no
// other call of the Store uses the lock file meanwhile.
func (s *Store) locked(ctx context.Context, exclusive bool, f func() error) error {
	turn, err := s.turns.Take(ctx, s.path)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		turn.Give()
		return fmt.Errorf("extstore: %w", store.ErrClosed)
	}
	got := make(chan error) // unbuffered: a send lands only if locked still waits
	abandoned := make(chan struct{})
	go func() {
		err := lock(s.lock, exclusive)
		select {
		case got <- err:
		case <-abandoned:
			if err == nil {
				unlock(s.lock)
			}
			turn.Give()
		}
	}()
	select {
	case err = <-got:
	case <-ctx.Done():
		close(abandoned)
		return fmt.Errorf("waiting for the lock %s: %w", s.lock.Name(), ctx.Err())
	}
	defer turn.Give()
	if err != nil {
		return fmt.Errorf("lock %s: %w", s.lock.Name(), err)
	}
	defer unlock(s.lock)
	return f()
}

// load reads the data file; a file not yet written holds nothing.
func (s *Store) load() (*data, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return newData(), nil
	}
	if err != nil {
		return nil, err
	}
	d := newData()
	if err := storekit.DecodeStrict(b, d); err != nil {
		return nil, fmt.Errorf("%s is not a file this store wrote: %w", s.path, err)
	}
	return d, d.check()
}

// save replaces the data file with d: written to a temporary file beside it,
// synced, renamed over the old one and the directory synced, so that a crash
// leaves the old file or the new one, and the change is on disk when save returns.
func (s *Store) save(d *data) (err error) {
	b, err := encode(d)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), s.path); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(s.path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}

// nowMs is the store clock in epoch milliseconds.
func (s *Store) nowMs() int64 { return s.now().UnixMilli() }
