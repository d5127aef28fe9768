package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
)

// reindexBatch is how many keys Reindex adds with one ZADD.
const reindexBatch = 1000

// Reindex adds to the index that Keys pages through every range key of the store
// on the server, found with SCAN (on every master of a Cluster, every shard of a
// Ring), and returns how many it found. Run it once on keys that a version of the
// store without the index wrote; the store keeps the index itself from then on.
// A scan of millions of keys takes a while: it runs within ctx only, not the
// store's timeout.
func (s *Store) Reindex(ctx context.Context) (int, error) {
	if s.closed.Load() {
		return 0, fmt.Errorf("%s: reindex: %w", s.name, store.ErrClosed)
	}
	pattern := globEscape(s.prefix) + "{*}:range"
	var found atomic.Int64
	scan := func(ctx context.Context, node redis.Cmdable) error {
		batch := make([]redis.Z, 0, reindexBatch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			err := s.client.ZAddNX(ctx, indexName(s.prefix), batch...).Err()
			found.Add(int64(len(batch)))
			batch = batch[:0]
			return err
		}
		it := node.Scan(ctx, 0, pattern, reindexBatch).Iterator()
		for it.Next(ctx) {
			if key, ok := keyOfRangeName(s.prefix, it.Val()); ok {
				batch = append(batch, redis.Z{Member: key})
			}
			if len(batch) == reindexBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
		return flush()
	}
	var err error
	switch c := s.client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return scan(ctx, m) })
	case *redis.Ring:
		err = c.ForEachShard(ctx, func(ctx context.Context, m *redis.Client) error { return scan(ctx, m) })
	default:
		err = scan(ctx, s.client)
	}
	if err != nil {
		return int(found.Load()), fmt.Errorf("%s: reindex: %w", s.name, err)
	}
	return int(found.Load()), nil
}

// globEscape escapes the characters of a SCAN MATCH pattern in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// keyOfRangeName returns the range key whose hash is named name (rangeKey), or ok
// false when name is no such name of the store's.
func keyOfRangeName(prefix, name string) (key string, ok bool) {
	inner, ok := strings.CutPrefix(name, prefix+"{")
	if !ok {
		return "", false
	}
	if inner, ok = strings.CutSuffix(inner, "}:range"); !ok {
		return "", false
	}
	key = strings.NewReplacer("%25", "%", "%7D", "}").Replace(inner)
	if store.CheckKey(key) != nil || rangeKey(prefix, key) != name {
		return "", false
	}
	return key, true
}
