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

// GiveBack implements store.GiveBacker through the server's store (S7). It is
// sent to one server only, never made again on another when its outcome is
// unknown: a give-back repeated after another caller reserved the tail it lowered
// would lower the value below that caller's range. A server whose store takes no
// give-back answers false, and the tail stays a gap.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("httpstore: %w", err)
	}
	var out wire.GivenBack
	if err := s.call(ctx, wire.PathGiveBack, wire.GiveBackRequest{Key: key, Start: tail.Start, End: tail.End}, &out); err != nil {
		return false, fmt.Errorf("httpstore: give back %v of %q: %w", tail, key, err)
	}
	return out.Lowered, nil
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
