package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store/storekit"
)

// ErrNotReplicated means an operation's write reached fewer replicas than
// WithReplicas asks for within its wait: the store does not hand out what a failover
// could lose. A reservation that fails so leaves a gap; an acquisition leaves the slot
// held until its lease expires.
var ErrNotReplicated = errors.New("the write reached too few replicas")

// checkReplicas reports settings of WithReplicas the store cannot keep.
func checkReplicas(cfg config, client any) error {
	switch {
	case cfg.replicas < 0:
		return fmt.Errorf("replicas %d, want ≥ 0", cfg.replicas)
	case cfg.replicas > 0 && cfg.replicaWait <= 0:
		return fmt.Errorf("replica wait %v, want > 0", cfg.replicaWait)
	}
	if _, ring := client.(*redis.Ring); ring && cfg.replicas > 0 {
		return errors.New("WithReplicas cannot serve a Ring client: WAIT would reach another shard than the script")
	}
	return nil
}

// run runs script on the keys, which share one hash slot, with EVALSHA (EVAL after
// NOSCRIPT), followed by WAIT in the same round trip when the store waits for
// replicas.
func (s *Store) run(ctx context.Context, script *redis.Script, keys []string, args ...any) *redis.Cmd {
	if err := s.recheck(ctx); err != nil {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	if s.replicas == 0 {
		cmd := script.Run(ctx, s.client, keys, args...)
		s.failedWrite(cmd.Err())
		return cmd
	}
	var conn redis.Cmdable = s.client
	if c, ok := s.client.(*redis.ClusterClient); ok {
		m, err := c.MasterForKey(ctx, keys[0])
		if err != nil {
			cmd := redis.NewCmd(ctx)
			cmd.SetErr(fmt.Errorf("finding the master of %q: %w", keys[0], err))
			return cmd
		}
		conn = m
	}
	cmd, wait := s.withWait(ctx, conn, script.EvalSha, keys, args)
	if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		cmd, wait = s.withWait(ctx, conn, script.Eval, keys, args)
	}
	acked, err := replicasAcked(wait)
	switch {
	case cmd.Err() != nil:
		s.failedWrite(cmd.Err())
	case err != nil:
		s.failedWrite(err)
		cmd.SetErr(fmt.Errorf("%s for %d replicas: %w", wait.Args()[0], s.replicas, err))
	case acked < int64(s.replicas):
		cmd.SetErr(fmt.Errorf("%w: %d of %d replicas confirmed it within %v", ErrNotReplicated, acked, s.replicas, s.replicaWait))
	}
	return cmd
}

// withWait sends eval of the script and WAIT in one pipeline on conn.
func (s *Store) withWait(ctx context.Context, conn redis.Cmdable, eval func(context.Context, redis.Scripter, []string, ...any) *redis.Cmd,
	keys []string, args []any) (*redis.Cmd, *redis.Cmd) {
	pipe := conn.Pipeline()
	cmd := eval(ctx, pipe, keys, args...)
	// At least a millisecond: WAIT with a timeout of 0 waits for ever. WAITAOF (Redis
	// 7.2) waits until the replicas have written the script's effect to their
	// append-only files, not only received it; the master's own fsync is
	// appendfsync always's, so it asks for no local one (0), which a master without
	// an append-only file would refuse.
	var wait *redis.Cmd
	if s.gate.waitAOF.Load() {
		wait = pipe.Do(ctx, "WAITAOF", 0, s.replicas, storekit.MillisUp(s.replicaWait))
	} else {
		wait = pipe.Do(ctx, "WAIT", s.replicas, storekit.MillisUp(s.replicaWait))
	}
	pipe.Exec(ctx) // its error is one of the commands'
	return cmd, wait
}

// replicasAcked reads the replicas that confirmed a write from the reply of WAIT (a
// count) or WAITAOF (the local fsyncs and the replicas' fsyncs).
func replicasAcked(wait *redis.Cmd) (int64, error) {
	v, err := wait.Result()
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case int64:
		return v, nil
	case []any:
		if len(v) == 2 {
			if n, ok := v[1].(int64); ok {
				return n, nil
			}
		}
	}
	return 0, fmt.Errorf("%s answered %v (%T), want a count of replicas", wait.Args()[0], v, v)
}
