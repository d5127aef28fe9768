package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// maxTxAttempts bounds the transactions of one FetchTransaction reservation: a
// concurrent creation of the same key makes one of them fail with a duplicate key or
// a deadlock, and the next attempt finds the key.
const maxTxAttempts = 10

// Reserve implements store.RangeStore. It is one statement, one round trip, except
// with FetchTransaction, and when initialOffset+size would pass math.MaxInt64 (then
// only an existing key can serve it, which a short transaction finds out).
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("%s: reserve: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.Range{}, s.fail(ctx, "reserve", key, err)
	}
	defer cancel()
	var next int64
	if s.plan == FetchStatement && storekit.Fits(initialOffset, size) {
		next, err = s.reserveStatement(ctx, key, size, initialOffset+size)
	} else {
		next, err = s.reserveTx(ctx, key, size, initialOffset)
	}
	if err != nil {
		return store.Range{}, s.fail(ctx, "reserve", key, err)
	}
	if next < size {
		return store.Range{}, s.fail(ctx, "reserve", key, fmt.Errorf("%w (reported %d for a size of %d)", ErrLostValue, next, size))
	}
	return store.Range{Start: next - size, End: next}, nil
}

func (s *Store) reserveStatement(ctx context.Context, key string, size, created int64) (int64, error) {
	next, ok, err := s.ranges.Reserve(ctx, s.q, key, size, created)
	if err != nil || ok {
		return next, err
	}
	// No row changed, or (MySQL) the statement reported no value: read why. A sealed
	// key stays sealed and a full one full, so the answer holds for the statement too.
	cur, sealed, found, err := s.ranges.Read(ctx, s.q, key)
	if err != nil {
		return 0, err
	}
	return 0, refusal(found, sealed, cur, size)
}

// refusal explains a reservation that changed no row of an existing key.
func refusal(found, sealed bool, cur, size int64) error {
	switch {
	case sealed:
		return store.ErrSealed
	case found && !storekit.Fits(cur, size):
		return storekit.ExhaustedAfter(cur, size)
	default:
		return ErrLostValue
	}
}

// errAppeared means a key that the transaction's update found missing was created by
// another transaction before the read: the next attempt updates it.
var errAppeared = errors.New("the key was created concurrently")

// reserveTx reserves in transactions, running one again when a concurrent one made it
// fail in a way that may pass next time.
func (s *Store) reserveTx(ctx context.Context, key string, size, initialOffset int64) (int64, error) {
	for attempt := 1; ; attempt++ {
		next, err := s.reserveInTx(ctx, key, size, initialOffset)
		retry := errors.Is(err, errAppeared) || s.dialect.Retryable(err)
		if err == nil || attempt == maxTxAttempts || ctx.Err() != nil || !retry {
			return next, err
		}
	}
}

// reserveInTx writes first, so that the transaction holds the row (or, with SQLite,
// the database) before it reads: the value it reads back is the one it wrote.
func (s *Store) reserveInTx(ctx context.Context, key string, size, initialOffset int64) (int64, error) {
	return inTx(ctx, s, func(ctx context.Context, q Querier) (int64, error) {
		advanced, err := s.ranges.Advance(ctx, q, key, size)
		if err != nil {
			return 0, err
		}
		cur, sealed, found, err := s.ranges.Read(ctx, q, key)
		switch {
		case err != nil:
			return 0, err
		case advanced && (!found || sealed):
			return 0, ErrLostValue
		case advanced:
			return cur, nil
		case sealed || (found && !storekit.Fits(cur, size)):
			return 0, refusal(found, sealed, cur, size)
		case found:
			return 0, errAppeared
		case !storekit.Fits(initialOffset, size):
			return 0, fmt.Errorf("%w: a new key starting at %d has no room for %d", store.ErrExhausted, initialOffset, size)
		}
		next := initialOffset + size
		return next, s.ranges.Insert(ctx, q, key, next)
	})
}

var _ store.GiveBacker = (*Store)(nil)

// GiveBack implements store.GiveBacker: one statement that lowers the key's next
// value to tail.Start where it is tail.End and the key is not sealed; the rows it
// changed are the answer. A dialect whose Ranges is no GiveBackRanges fails it with
// errors.ErrUnsupported.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("%s: give back: %w", s.name, err)
	}
	g, ok := s.ranges.(GiveBackRanges)
	if !ok {
		return false, fmt.Errorf("%s: give back %q: dialect %s takes no give-back: %w", s.name, key, s.dialect.Name(), errors.ErrUnsupported)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return false, s.fail(ctx, "give back", key, err)
	}
	defer cancel()
	lowered, err := g.GiveBack(ctx, s.q, key, tail.Start, tail.End)
	if err != nil {
		return false, s.fail(ctx, "give back", key, err)
	}
	return lowered, nil
}

// Seal implements store.RangeStore: one statement that marks the key sealed, creating
// it sealed when it does not exist.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: seal: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return s.fail(ctx, "seal", key, err)
	}
	defer cancel()
	if err := s.ranges.Seal(ctx, s.q, key); err != nil {
		return s.fail(ctx, "seal", key, err)
	}
	return nil
}
