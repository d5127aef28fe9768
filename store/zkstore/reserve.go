package zkstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Bounds of the compare-and-swaps of one reservation or seal. Only a key that other
// processes keep writing misses again and again, and then the attempts back off.
const (
	maxAttempts = 64
	backoffBase = time.Millisecond
	backoffMax  = 20 * time.Millisecond
)

// keyState is what this store knows of a range key: its value at a znode version,
// from its last write or read, kept in the key's turn (storekit.KeyTurns).
type keyState struct {
	known   bool // the fields below are the znode as last read or written
	exists  bool
	next    int64
	sealed  bool
	version int32
}

func (s *Store) rangePath(key string) string { return s.root + "/ranges/" + escape(key) }

// Reserve implements store.RangeStore: a versioned Set of the key's znode to its new
// next value, or a Create of the znode for a new key. Reservations of one key in this
// process take turns, and the store remembers the znode's version from its last
// write, so that a key only this process writes costs one round trip; a write by
// another process makes the Set miss, and the store reads the znode and tries again,
// backing off from the second miss on, up to maxAttempts writes within the store's
// timeout.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("%s: reserve: %w", s.name, err)
	}
	var r store.Range
	err := s.update(ctx, key, func(k *keyState) (*value, error) {
		var err error
		if r, err = storekit.NextRange(k.exists, k.sealed, k.next, size, initialOffset); err != nil {
			return nil, err
		}
		return &value{Next: r.End}, nil
	})
	if err != nil {
		return store.Range{}, s.failed(fmt.Sprintf("reserve %q", key), err)
	}
	return r, nil
}

// Seal implements store.RangeStore: the key keeps its next value and is marked
// sealed, or is created sealed at 0, by the same compare-and-swap as Reserve.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: seal: %w", s.name, err)
	}
	err := s.update(ctx, key, func(k *keyState) (*value, error) {
		if k.sealed {
			return nil, nil
		}
		return &value{Next: k.next, Sealed: true}, nil
	})
	if err != nil {
		return s.failed(fmt.Sprintf("seal %q", key), err)
	}
	return nil
}

var _ store.GiveBacker = (*Store)(nil)

// errNotTail refuses a give-back of a key whose next value is not the tail's end
// unsealed; a refusal on an earlier answer is checked against a fresh read.
var errNotTail = errors.New("next value is not the tail's end")

// GiveBack implements store.GiveBacker: a versioned Set of the key's znode to
// tail.Start, made only when the znode, as last written or read in the key's turn,
// holds tail.End unsealed. After its own reservation the store knows the version, so
// a give-back costs one round trip; a Set that misses reads the znode and decides
// again.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("%s: give back: %w", s.name, err)
	}
	err := s.update(ctx, key, func(k *keyState) (*value, error) {
		if !k.exists || k.sealed || k.next != tail.End {
			return nil, errNotTail
		}
		return &value{Next: tail.Start}, nil
	})
	switch {
	case errors.Is(err, errNotTail):
		return false, nil
	case err != nil:
		return false, s.failed(fmt.Sprintf("give back %q", key), err)
	}
	return true, nil
}

// update writes what change makes of key's value with a compare-and-swap on the
// znode's version (a Create for an absent znode), in key's turn. change sees the key
// as last known and returns the new value, nil for no write, or an error that ends
// the update; a refusal made on an old answer is checked against a fresh read.
func (s *Store) update(ctx context.Context, key string, change func(*keyState) (*value, error)) error {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	turn, err := s.keys.Take(ctx, key)
	if err != nil {
		return err
	}
	defer turn.Give()
	k := &turn.State
	path := s.rangePath(key)
	misses := 0
	for attempt := 1; ; attempt++ {
		fresh := false
		if !k.known {
			if err := s.read(ctx, k, path); err != nil {
				return err
			}
			fresh = true
		}
		v, err := change(k)
		if err != nil && !fresh {
			// Refused on an earlier answer: a sealed key stays sealed and a next value
			// only grows, but the key may have been created since it was seen absent.
			k.known = false
			continue
		}
		if err != nil || v == nil {
			return err
		}
		var stat *zk.Stat
		if k.exists {
			stat, err = s.set(ctx, path, encode(v), k.version)
		} else {
			err = s.create(ctx, path, encode(v))
			stat = &zk.Stat{}
		}
		switch {
		case err == nil:
			k.exists, k.next, k.sealed, k.version = true, v.Next, v.Sealed, stat.Version
			return nil
		case !errors.Is(err, zk.ErrBadVersion) && !errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, zk.ErrNoNode):
			k.known = false // the write may have happened: read before the next one
			return err
		}
		k.known = false
		misses++
		if attempt == maxAttempts {
			return fmt.Errorf("%w: %d compare-and-swaps missed", ErrContention, attempt)
		}
		if misses > 1 {
			if err := storekit.Backoff(ctx, misses-1, backoffBase, backoffMax); err != nil {
				return err
			}
		}
	}
}

// read reads the znode at path into k.
func (s *Store) read(ctx context.Context, k *keyState, path string) error {
	data, stat, err := s.get(ctx, path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		k.known, k.exists, k.next, k.sealed, k.version = true, false, 0, false, 0
		return nil
	case err != nil:
		return err
	}
	v, err := parseValue(data)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	}
	k.known, k.exists, k.next, k.sealed, k.version = true, true, v.Next, v.Sealed, stat.Version
	return nil
}
