package httpstore

import (
	"context"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/storekit"
)

// Reserve implements store.RangeStore.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("httpstore: %w", err)
	}
	var r wire.Range
	err := s.call(ctx, wire.PathReserve, wire.ReserveRequest{Key: key, Size: size, InitialOffset: initialOffset}, &r)
	if err != nil {
		return store.Range{}, fmt.Errorf("httpstore: reserve %d of %q: %w", size, key, err)
	}
	if r.Start < 0 || r.End-r.Start != size {
		return store.Range{}, fmt.Errorf("httpstore: reserve %d of %q: %s: %w: the server answered %v, want %d values from a start ≥ 0",
			size, key, s.server(), wire.ErrRemote, store.Range(r), size)
	}
	return store.Range(r), nil
}

// Seal implements store.RangeStore.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("httpstore: %w", err)
	}
	if err := s.call(ctx, wire.PathSeal, wire.SealRequest{Key: key}, nil); err != nil {
		return fmt.Errorf("httpstore: seal %q: %w", key, err)
	}
	return nil
}
