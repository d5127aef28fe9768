package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/storekit"
)

// Reserve implements store.RangeStore: one script, one round trip. The key's hash
// holds the value its next range starts at; the script adds size to it with HINCRBY,
// in 64-bit integers, so that values near math.MaxInt64 stay exact, and a key that
// would pass it fails with store.ErrExhausted and stays as it was.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("%s: reserve: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.Range{}, s.fail("reserve", key, err)
	}
	defer cancel()
	if err := s.indexKey(ctx, key); err != nil {
		return store.Range{}, s.fail("reserve", key, err)
	}
	created := ""
	if storekit.Fits(initialOffset, size) {
		created = strconv.FormatInt(initialOffset+size, 10)
	}
	reply, err := s.run(ctx, reserveScript, []string{rangeKey(s.prefix, key)}, size, created).Result()
	if err != nil {
		return store.Range{}, s.fail("reserve", key, err)
	}
	r, err := parseReserve(reply, size)
	if err != nil {
		return store.Range{}, s.fail("reserve", key, err)
	}
	return r, nil
}

// maxExact is 2^53: the script answers a next value below it as an integer, which
// Lua's doubles hold exactly, and a larger one as text.
const maxExact = 1 << 53

// parseReserve reads the reply of reserveScript for a reservation of size.
func parseReserve(reply any, size int64) (store.Range, error) {
	switch v := reply.(type) {
	case string:
		next, err := strconv.ParseInt(v, 10, 64)
		if err != nil || next < size {
			return store.Range{}, fmt.Errorf("the script answered %q, not a value a reservation of %d can end at", v, size)
		}
		return store.Range{Start: next - size, End: next}, nil
	case int64:
		switch {
		case v == -1:
			return store.Range{}, store.ErrSealed
		case v == -2:
			return store.Range{}, fmt.Errorf("%w: %d more values would pass math.MaxInt64", store.ErrExhausted, size)
		case v >= size && v < maxExact:
			return store.Range{Start: v - size, End: v}, nil
		}
	}
	return store.Range{}, fmt.Errorf("the script answered %v (%T), want a value a reservation of %d can end at, -1 or -2", reply, reply, size)
}

var _ store.GiveBacker = (*Store)(nil)

// GiveBack implements store.GiveBacker: one script, one round trip, that lowers the
// key's next value to tail.Start when it is tail.End and the key is not sealed.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("%s: give back: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return false, s.fail("give back", key, err)
	}
	defer cancel()
	n, err := s.run(ctx, giveBackScript, []string{rangeKey(s.prefix, key)},
		strconv.FormatInt(tail.Start, 10), strconv.FormatInt(tail.End, 10)).Int64()
	if err != nil {
		return false, s.fail("give back", key, err)
	}
	return n == 1, nil
}

// Seal implements store.RangeStore: it sets the sealed field of the key's hash, one
// command, which the reserve script checks first.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: seal: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return s.fail("seal", key, err)
	}
	defer cancel()
	if err := s.indexKey(ctx, key); err != nil {
		return s.fail("seal", key, err)
	}
	if err := s.recheck(ctx); err != nil {
		return s.fail("seal", key, err)
	}
	if err := s.client.HSet(ctx, rangeKey(s.prefix, key), "sealed", 1).Err(); err != nil {
		s.failedWrite(err)
		return s.fail("seal", key, err)
	}
	return nil
}

// fail wraps err of an operation on key with the store's name.
func (s *Store) fail(op, key string, err error) error {
	return fmt.Errorf("%s: %s key %q: %w", s.name, op, key, err)
}
