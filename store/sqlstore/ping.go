package sqlstore

import (
	"context"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: it pings the database and checks again, as Open
// did, that the store's tables exist with their columns (it creates nothing, even
// with initSchema), so that a database that lost them, or a login that can no longer
// read them, fails.
func (s *Store) Ping(ctx context.Context) error {
	_, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (struct{}, error) {
		if err := s.db.PingContext(ctx); err != nil {
			return struct{}{}, err
		}
		if lacking := s.readTables(ctx, s.tables); len(lacking) > 0 {
			if err := ctx.Err(); err != nil {
				return struct{}{}, err
			}
			return struct{}{}, fmt.Errorf("%s", describeAll(lacking))
		}
		return struct{}{}, nil
	})
	if err != nil {
		return failed(ctx, s.name+": ping", err)
	}
	return nil
}

var _ store.Identifier = (*Store)(nil)

// StoreID implements store.Identifier: the identity is a sealed key of the store
// (storekit.StoreID), written by the first call on a new backend.
func (s *Store) StoreID(ctx context.Context) (string, error) { return storekit.StoreID(ctx, s) }
