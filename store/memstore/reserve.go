package memstore

import (
	"context"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Reserve implements store.RangeStore.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := s.check(ctx); err != nil {
		return store.Range{}, err
	}
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("memstore: reserve: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	row := d.ranges[key]
	found := row != nil
	if !found {
		row = &rangeRow{}
	}
	r, err := storekit.NextRange(found, row.sealed, row.next, size, initialOffset)
	if err != nil {
		return store.Range{}, fmt.Errorf("memstore: reserve %q: %w", key, err)
	}
	if !found {
		d.ranges[key] = row
	}
	row.next = r.End
	return r, nil
}

// Seal implements store.RangeStore.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("memstore: seal: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	if row := d.ranges[key]; row != nil {
		row.sealed = true
	} else {
		d.ranges[key] = &rangeRow{sealed: true}
	}
	return nil
}

var _ store.GiveBacker = (*Store)(nil)

// GiveBack implements store.GiveBacker: under the lock that Reserve takes, it lowers
// key's next value to tail.Start when it still equals tail.End and the key is not
// sealed.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := s.check(ctx); err != nil {
		return false, err
	}
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("memstore: give back: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	row := d.ranges[key]
	if row == nil || row.sealed || row.next != tail.End {
		return false, nil
	}
	row.next = tail.Start
	return true, nil
}
