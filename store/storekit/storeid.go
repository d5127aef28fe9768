package storekit

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid/store"
)

// StoreIDKey is the range key that holds a store's identity (StoreID): sealed, so
// that no Reserve moves it.
const StoreIDKey = ".cosid/store-id"

// StoreID returns the identity of the store a (store.Identifier), writing it when a
// has none: the next value of StoreIDKey, which it creates at a random value and
// seals. Any store.Admin keeps it with its own calls alone. Of concurrent first
// calls on one backend, each Reserve lands before the Seal or is refused by it
// (S6), and the sealed value never moves again, so all of them read one value.
func StoreID(ctx context.Context, a store.Admin) (string, error) {
	id, ok, err := readStoreID(ctx, a)
	if err != nil || ok {
		return id, err
	}
	var b [8]byte
	rand.Read(b[:])
	// In [2^61, 2^62): one reservation above it can never pass math.MaxInt64 (S5).
	start := int64(binary.BigEndian.Uint64(b[:])>>3 | 1<<61)
	if _, err := a.Reserve(ctx, StoreIDKey, 1, start); err != nil && !errors.Is(err, store.ErrSealed) {
		return "", fmt.Errorf("writing the store identity: %w", err)
	}
	if err := a.Seal(ctx, StoreIDKey); err != nil {
		return "", fmt.Errorf("sealing the store identity: %w", err)
	}
	id, ok, err = readStoreID(ctx, a)
	if err == nil && !ok {
		err = fmt.Errorf("reading the store identity: %s is not sealed after its seal", StoreIDKey)
	}
	return id, err
}

// readStoreID returns the identity of a, and whether it has one: StoreIDKey sealed.
func readStoreID(ctx context.Context, a store.Admin) (string, bool, error) {
	keys, err := a.Keys(ctx, StoreIDKey, "", 1)
	if err != nil {
		return "", false, fmt.Errorf("reading the store identity: %w", err)
	}
	if len(keys) == 0 || keys[0].Key != StoreIDKey || !keys[0].Sealed {
		return "", false, nil
	}
	return fmt.Sprintf("%016x", keys[0].Next), true, nil
}
