package redisstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/redisstore"
)

// emptyScript is the baseline of a script's round trip: EVALSHA of a script that
// touches no key.
var emptyScript = redis.NewScript("return 1")

// benchServers are the servers the benchmarks compare on: the durable one, where
// every write waits for an fsync, and the volatile one, where none does.
var benchServers = []struct {
	name, env string
	opts      []redisstore.Option
}{
	{"durable", testenv.RedisDurable, nil},
	{"volatile", testenv.Redis, []redisstore.Option{redisstore.WithVolatileServer()}},
}

// BenchmarkReserve compares a reservation with the bare commands it stands beside on
// each server, in one run: INCRBY of a plain key and EVALSHA of an empty script. A
// reservation is one EVALSHA of a script that runs HMGET, HINCRBY and HGET.
func BenchmarkReserve(b *testing.B) {
	for _, srv := range benchServers {
		b.Run(srv.name, func(b *testing.B) {
			prefix, client, st := benchStore(b, srv.env, srv.opts)
			ctx := b.Context()
			incrBy := testenv.Op{Name: "bare=INCRBY", Run: func() error { return client.IncrBy(ctx, prefix+"bare", 100).Err() }}
			evalSha := testenv.Op{Name: "bare=EVALSHA-empty", Run: func() error { return emptyScript.EvalSha(ctx, client, nil).Err() }}
			reserve := testenv.Op{Name: "store=Reserve", Run: func() error { _, err := st.Reserve(ctx, "bench", 100, 1); return err }}
			testenv.Beside(b, []testenv.Op{incrBy, evalSha, reserve}, []testenv.Op{incrBy, reserve})
		})
	}
}

// BenchmarkLease measures an acquisition and a release of a slot, two scripts,
// beside the bare EVALSHA of an empty script, on a namespace of 1,024 slots whose
// lower 1,000 are held.
func BenchmarkLease(b *testing.B) {
	for _, srv := range benchServers {
		b.Run(srv.name, func(b *testing.B) {
			addr := testenv.Server(b, srv.env)
			client := newClient(b, addr)
			st := openStore(b, addr, append(srv.opts, redisstore.WithPrefix(testPrefix(b, addr)))...)
			ctx := b.Context()
			if err := emptyScript.Load(ctx, client).Err(); err != nil {
				b.Fatal(err)
			}
			testenv.AcquireRelease(b, st, 1000, "EVALSHA-empty", func() error { return emptyScript.EvalSha(ctx, client, nil).Err() })
		})
	}
}

// BenchmarkReserve_Interleaved runs an empty EVALSHA, an INCRBY and a reservation in
// turn in every iteration and reports the median of each, so that the three meet the
// same load on a shared machine; "reserve/evalsha" is the ratio of the medians.
func BenchmarkReserve_Interleaved(b *testing.B) {
	for _, srv := range benchServers {
		b.Run(srv.name, func(b *testing.B) {
			prefix, client, st := benchStore(b, srv.env, srv.opts)
			ctx := b.Context()
			ops := []struct {
				name string
				run  func(context.Context) error
			}{
				{"evalsha", func(ctx context.Context) error { return emptyScript.EvalSha(ctx, client, nil).Err() }},
				{"incrby", func(ctx context.Context) error { return client.IncrBy(ctx, prefix+"bare", 100).Err() }},
				{"reserve", func(ctx context.Context) error { _, err := st.Reserve(ctx, "bench", 100, 1); return err }},
			}
			took := make([][]time.Duration, len(ops))
			for b.Loop() {
				for i, op := range ops {
					start := time.Now()
					if err := op.run(ctx); err != nil {
						b.Fatal(err)
					}
					took[i] = append(took[i], time.Since(start))
				}
			}
			medians := make([]float64, len(ops))
			for i, op := range ops {
				slices.Sort(took[i])
				medians[i] = float64(took[i][len(took[i])/2])
				b.ReportMetric(medians[i], op.name+"-ns/op")
			}
			b.ReportMetric(medians[2]/medians[0], "reserve/evalsha")
			b.ReportMetric(medians[2]/medians[1], "reserve/incrby")
		})
	}
}

// benchStore returns a key prefix unique to the run, a client and a store on the
// server named by env, with the empty script loaded.
func benchStore(b *testing.B, env string, opts []redisstore.Option) (string, *redis.Client, *redisstore.Store) {
	addr := testenv.Server(b, env)
	prefix := testPrefix(b, addr)
	client := newClient(b, addr)
	st := openStore(b, addr, append(opts, redisstore.WithPrefix(prefix))...)
	if err := emptyScript.Load(b.Context(), client).Err(); err != nil {
		b.Fatal(err)
	}
	return prefix, client, st
}
