package etcdstore

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: a linearizable read of the store's prefix, counting
// its keys (it reads none), which needs a quorum of the cluster and the client's
// credentials, as a reservation does.
func (s *Store) Ping(ctx context.Context) error {
	_, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (*clientv3.GetResponse, error) {
		return s.client.Get(ctx, s.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	})
	if err != nil {
		return s.failed(ctx, "ping", err)
	}
	return nil
}

var _ store.Identifier = (*Store)(nil)

// StoreID implements store.Identifier: the identity is a sealed key of the store
// (storekit.StoreID), written by the first call on a new backend.
func (s *Store) StoreID(ctx context.Context) (string, error) { return storekit.StoreID(ctx, s) }
