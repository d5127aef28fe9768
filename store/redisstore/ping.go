package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: a PING of the server, or of every master of a
// Cluster and every shard of a Ring, the servers that the durability check of New
// read, with the client's credentials.
func (s *Store) Ping(ctx context.Context) error {
	_, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (struct{}, error) {
		each := func(ctx context.Context, m *redis.Client) error {
			if err := m.Ping(ctx).Err(); err != nil {
				return fmt.Errorf("server %s: %w", m.Options().Addr, err)
			}
			return nil
		}
		switch c := s.client.(type) {
		case *redis.ClusterClient:
			return struct{}{}, c.ForEachMaster(ctx, each)
		case *redis.Ring:
			return struct{}{}, c.ForEachShard(ctx, each)
		}
		return struct{}{}, s.client.Ping(ctx).Err()
	})
	if err != nil {
		return fmt.Errorf("%s: ping: %w", s.name, err)
	}
	return nil
}

var _ store.Identifier = (*Store)(nil)

// StoreID implements store.Identifier: the identity is a sealed key of the store
// (storekit.StoreID), written by the first call on a new backend.
func (s *Store) StoreID(ctx context.Context) (string, error) { return storekit.StoreID(ctx, s) }
