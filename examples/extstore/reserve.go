package extstore

import (
	"context"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Reserve implements store.RangeStore. The range is the key's as read under the
// exclusive lock (storekit.NextRange: S2, S5, S6), and it is handed out only once
// the key's new next value is on disk (S1, S3).
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("extstore: reserve: %w", err)
	}
	r, err := update(ctx, s, func(d *data) (store.Range, bool, error) {
		row, found := d.Ranges[key]
		if !found {
			row = &rangeRow{}
		}
		r, err := storekit.NextRange(found, row.Sealed, row.Next, size, initialOffset)
		if err != nil {
			return store.Range{}, false, err
		}
		row.Next = r.End
		d.Ranges[key] = row
		return r, true, nil
	})
	if err != nil {
		return store.Range{}, fmt.Errorf("extstore: reserve %q: %w", key, err)
	}
	return r, nil
}

// Seal implements store.RangeStore: a key sealed, or created sealed, keeps its next
// value and hands out no more ranges (S6).
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("extstore: seal: %w", err)
	}
	_, err := update(ctx, s, func(d *data) (struct{}, bool, error) {
		row := d.Ranges[key]
		if row == nil {
			row = &rangeRow{}
			d.Ranges[key] = row
		}
		write := !row.Sealed
		row.Sealed = true
		return struct{}{}, write, nil
	})
	if err != nil {
		return fmt.Errorf("extstore: seal %q: %w", key, err)
	}
	return nil
}
