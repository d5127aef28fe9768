package redisstore_test

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/redisstore"
)

// BenchmarkKeys_Page100 lists a page of 100 keys out of 1,000 beside its baselines
// in the same run: the bare ZRANGE BYLEX of the index, and that with the pipeline of
// HMGETs of the keys' hashes that Keys sends after it.
func BenchmarkKeys_Page100(b *testing.B) {
	prefix, client, st := benchStore(b, testenv.RedisDurable, nil)
	ctx := b.Context()
	for i := range 1000 {
		if _, err := st.Reserve(ctx, fmt.Sprintf("keys/%04d", i), 1, 0); err != nil {
			b.Fatal(err)
		}
	}
	page := redis.ZRangeArgs{Key: redisstore.IndexName(prefix), Start: "(keys/0400", Stop: "(keys0", ByLex: true, Count: 100}
	b.Run("bare=ZRANGE-BYLEX", func(b *testing.B) {
		for b.Loop() {
			if n := len(client.ZRangeArgs(ctx, page).Val()); n != 100 {
				b.Fatal(n)
			}
		}
	})
	b.Run("bare=ZRANGE+HMGETx100", func(b *testing.B) {
		for b.Loop() {
			names := client.ZRangeArgs(ctx, page).Val()
			cmds, err := client.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, k := range names {
					p.HMGet(ctx, redisstore.RangeKey(prefix, k), "next", "sealed")
				}
				return nil
			})
			if err != nil || len(cmds) != 100 {
				b.Fatal(len(cmds), err)
			}
		}
	})
	b.Run("store=Keys", func(b *testing.B) {
		for b.Loop() {
			if keys, err := st.Keys(ctx, "keys/", "keys/0400", 100); err != nil || len(keys) != 100 {
				b.Fatal(len(keys), err)
			}
		}
	})
}
