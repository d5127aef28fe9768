package storekit

import (
	"fmt"
	"math"

	"github.com/cosid-go/cosid/store"
)

// CheckReserve reports whether the arguments of a Reserve keep the contract's rules:
// a valid key (store.CheckKey), size ≥ 1 and initialOffset ≥ 0, with an error
// wrapping store.ErrInvalidArgument that names the argument. A store calls it before
// it touches its backend, so that no backend sees an argument another would refuse.
func CheckReserve(key string, size, initialOffset int64) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	if size < 1 {
		return fmt.Errorf("%w: size %d for key %q, want ≥ 1", store.ErrInvalidArgument, size, key)
	}
	if initialOffset < 0 {
		return fmt.Errorf("%w: initialOffset %d for key %q, want ≥ 0", store.ErrInvalidArgument, initialOffset, key)
	}
	return nil
}

// Fits reports whether size more values fit after next without passing
// math.MaxInt64 (S5). A store that computes the end in Go uses it instead of
// next+size, which would wrap around.
func Fits(next, size int64) bool {
	return next >= 0 && size >= 0 && next <= math.MaxInt64-size
}

// NextRange returns the range that a Reserve of size takes from a key as the store
// last read it: found or not, sealed or not, with next as its next value. A key not
// found starts at initialOffset (S2). A sealed key fails with store.ErrSealed (S6),
// and a range that would pass math.MaxInt64 with ExhaustedAfter (S5). A store that
// works out the range in Go calls it, so that every store keeps these rules alike;
// it then writes End as the key's next value, and hands out the range only once
// that write is durable (S1, S3).
func NextRange(found, sealed bool, next, size, initialOffset int64) (store.Range, error) {
	if sealed {
		return store.Range{}, store.ErrSealed
	}
	if !found {
		next = initialOffset
	}
	if !Fits(next, size) {
		return store.Range{}, ExhaustedAfter(next, size)
	}
	return store.Range{Start: next, End: next + size}, nil
}

// ExhaustedAfter returns the error of a reservation of size more values after next
// that would pass math.MaxInt64 (S5), for a store that found Fits(next, size) false:
// it wraps store.ErrExhausted and names both numbers, so that every store words the
// refusal alike.
func ExhaustedAfter(next, size int64) error {
	return fmt.Errorf("%w: %d more after %d would pass %d", store.ErrExhausted, size, next, int64(math.MaxInt64))
}

// CheckGiveBack reports whether the arguments of a store.GiveBacker's GiveBack keep
// the contract's rules: a valid key and a tail of at least one value with
// 0 ≤ Start < End, with an error wrapping store.ErrInvalidArgument that names what is
// wrong. A store calls it before it touches its backend.
func CheckGiveBack(key string, tail store.Range) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	if tail.Start < 0 || tail.Start >= tail.End {
		return fmt.Errorf("%w: give-back tail %v for key %q, want 0 ≤ start < end", store.ErrInvalidArgument, tail, key)
	}
	return nil
}
