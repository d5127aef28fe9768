package mongostore

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: the ping command on the primary, the one member
// that takes the store's reservations (each is a write, read back from the
// primary), with the client's credentials.
func (s *Store) Ping(ctx context.Context) error {
	_, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.db.Client().Ping(ctx, readpref.Primary())
	})
	if err != nil {
		return s.failed("ping", err)
	}
	return nil
}

var _ store.Identifier = (*Store)(nil)

// StoreID implements store.Identifier: the identity is a sealed key of the store
// (storekit.StoreID), written by the first call on a new backend.
func (s *Store) StoreID(ctx context.Context) (string, error) { return storekit.StoreID(ctx, s) }
