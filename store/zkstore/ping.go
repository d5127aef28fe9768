package zkstore

import (
	"context"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: an Exists of the store's root, which needs a session
// with the ensemble, as every reservation does. A root that does not exist yet is no
// failure: the first reservation creates it.
func (s *Store) Ping(ctx context.Context) error {
	_, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (bool, error) {
		return call(ctx, func() (bool, error) {
			ok, _, err := s.conn.Exists(s.root)
			return ok, err
		})
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
