package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	// ErrAsyncReplicas means a master has more connected replicas than the store's
	// writes wait for (WithReplicas): Sentinel or a Cluster failover may promote one
	// that never received the last reservations, which then hands the same ids out
	// again. WithAsyncReplicas (options: { allowAsyncReplicas: true }) accepts it.
	ErrAsyncReplicas = errors.New("the Redis master has replicas that the store's writes do not wait for")
	// ErrTooFewReplicas means New was asked to wait for more replicas than the master
	// has: every operation would fail with ErrNotReplicated.
	ErrTooFewReplicas = errors.New("the Redis master has fewer replicas than the store waits for")
	// ErrNotMaster means the store reached a replica: its writes fail, or, on a
	// replica that accepts writes, vanish at the next resynchronisation.
	ErrNotMaster = errors.New("the Redis server is a replica, not a master")
)

// gate is the replication check of a store. New runs it on the server; then every
// new connection of the client runs it before its first command (go-redis's
// OnConnect), so that a Sentinel client's connections to a new master after a
// failover, or those a proxy moved, are judged before a write goes through them; a
// write also checks again when the last check is older than recheckEvery, or a write
// failed, to see replicas attached to a master the store stays connected to.
type gate struct {
	stale   atomic.Bool  // the next write checks first
	due     atomic.Int64 // unix ns of the next periodic check
	waitAOF atomic.Bool  // every master has WAITAOF (Redis 7.2): wait for the replicas' fsync
	mu      sync.Mutex   // one check at a time
	warnMu  sync.Mutex   // warned; apart from mu, as a check's own new connection warns too
	warned  string       // the finding the last warning logged, so a reconnect logs a new one only
}

// recheckEvery is how often writes check the replication of a master the store
// stays connected to.
const recheckEvery = time.Minute

// replication is what INFO replication and COMMAND INFO WAITAOF say of one master.
type replication struct {
	addr     string
	role     string
	replicas int  // connected_slaves
	waitAOF  bool // the server knows WAITAOF
}

// conn is what the gate sends its commands through: a client or one connection.
type conn interface {
	Info(ctx context.Context, section ...string) *redis.StringCmd
	Process(ctx context.Context, cmd redis.Cmder) error
}

// readReplication reads the replication state of the server c reaches.
func readReplication(ctx context.Context, c conn, addr string) (replication, error) {
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return replication{}, fmt.Errorf("server %s: INFO replication: %w", addr, err)
	}
	r, err := parseReplication(info)
	if err != nil {
		return replication{}, fmt.Errorf("server %s: %w", addr, err)
	}
	r.addr = addr
	// COMMAND INFO answers a nil entry for a command the server does not know.
	cmd := redis.NewSliceCmd(ctx, "COMMAND", "INFO", "WAITAOF")
	if c.Process(ctx, cmd) == nil && len(cmd.Val()) == 1 && cmd.Val()[0] != nil {
		r.waitAOF = true
	}
	return r, nil
}

// parseReplication reads role and connected_slaves from the text of INFO
// replication.
func parseReplication(info string) (replication, error) {
	var r replication
	seen := false
	for line := range strings.Lines(info) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "role":
			r.role = v
		case "connected_slaves":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return replication{}, fmt.Errorf("INFO replication says connected_slaves:%s, not a count", v)
			}
			r.replicas, seen = n, true
		}
	}
	switch {
	case r.role == "":
		return replication{}, errors.New("INFO replication has no role")
	case r.role == "master" && !seen:
		return replication{}, errors.New("INFO replication has no connected_slaves")
	}
	return r, nil
}

// verdict judges one master for a store that waits for want replicas; atOpen adds
// the check that want replicas exist, which after a failover only costs
// availability (every write fails with ErrNotReplicated until they are back).
// A nil error with warn set is a risk the configuration accepted.
func verdict(r replication, want int, async, atOpen bool) (warn string, err error) {
	if r.role != "master" {
		return "", fmt.Errorf("%w: server %s has role %s; point the store at the master (or a Sentinel: sentinels, master-name)", ErrNotMaster, r.addr, r.role)
	}
	switch {
	case atOpen && r.replicas < want:
		return "", fmt.Errorf("%w: server %s has %d connected replicas and the store waits for %d (options.replicas, WithReplicas): every write would fail; lower replicas to the replicas the master has",
			ErrTooFewReplicas, r.addr, r.replicas, want)
	case r.replicas > want && async:
		return fmt.Sprintf("server %s has %d replicas, writes wait for %d", r.addr, r.replicas, want), nil
	case r.replicas > want:
		return "", fmt.Errorf("%w: server %s has %d connected replicas and writes wait for %d; a failover to a replica that did not confirm the last reservations hands the same ids out again. Set options: { replicas: %d } (WithReplicas) so that every write waits for every replica, or accept the risk with options: { allowAsyncReplicas: true } (WithAsyncReplicas)",
			ErrAsyncReplicas, r.addr, r.replicas, want, r.replicas)
	}
	return "", nil
}

// checkReplication reads every master of client (each of a Cluster, each shard of a
// Ring) and judges it; it reports whether all of them know WAITAOF.
func checkReplication(ctx context.Context, client redis.UniversalClient, want int, async, atOpen bool) (warns []string, waitAOF bool, err error) {
	var mu sync.Mutex
	waitAOF = true
	each := func(ctx context.Context, c *redis.Client) error {
		r, err := readReplication(ctx, c, c.Options().Addr)
		if err != nil {
			return err
		}
		w, err := verdict(r, want, async, atOpen)
		mu.Lock()
		defer mu.Unlock()
		if w != "" {
			warns = append(warns, w)
		}
		waitAOF = waitAOF && r.waitAOF
		return err
	}
	switch c := client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, each)
	case *redis.Ring:
		err = c.ForEachShard(ctx, each)
	default:
		var r replication
		if r, err = readReplication(ctx, client, serverName(client)); err == nil {
			var w string
			w, err = verdict(r, want, async, atOpen)
			if w != "" {
				warns = append(warns, w)
			}
			waitAOF = r.waitAOF
		}
	}
	if err != nil {
		return nil, false, err
	}
	return warns, waitAOF, nil
}

// gateOpen runs the replication check of New, and installs it in the client's
// OnConnect (each node's, for a Cluster or a Ring, and each new node's).
func (s *Store) gateOpen(ctx context.Context, cfg config) error {
	warns, waitAOF, err := checkReplication(ctx, s.client, s.replicas, cfg.asyncReplicas, true)
	if err != nil {
		return err
	}
	s.gate.waitAOF.Store(waitAOF)
	s.gate.due.Store(time.Now().Add(recheckEvery).UnixNano())
	s.warnReplicas(warns)
	hook := func(c *redis.Client) {
		o := c.Options()
		o.OnConnect = s.onConnect(o.Addr, o.OnConnect)
	}
	switch c := s.client.(type) {
	case *redis.Client:
		hook(c)
	case *redis.ClusterClient:
		c.OnNewNode(hook)
		return c.ForEachShard(ctx, func(_ context.Context, n *redis.Client) error { hook(n); return nil })
	case *redis.Ring:
		c.OnNewNode(hook)
		return c.ForEachShard(ctx, func(_ context.Context, n *redis.Client) error { hook(n); return nil })
	}
	return nil
}

// onConnect returns the OnConnect of a client of addr: prev, then the replication
// check on the new connection, which refuses it when its master has replicas the
// writes do not wait for. A replica passes: the store's writes do not go there (a
// Cluster client reads the slot map from any node), and a write that did would fail
// with READONLY.
func (s *Store) onConnect(addr string, prev func(context.Context, *redis.Conn) error) func(context.Context, *redis.Conn) error {
	if addr == "FailoverClient" {
		addr = "the Sentinel's master"
	}
	return func(ctx context.Context, cn *redis.Conn) error {
		if prev != nil {
			if err := prev(ctx, cn); err != nil {
				return err
			}
		}
		if s.closed.Load() {
			return nil
		}
		r, err := readReplication(ctx, cn, addr)
		if err != nil || r.role != "master" {
			return err
		}
		w, err := verdict(r, s.replicas, s.asyncReplicas, false)
		if err != nil {
			return fmt.Errorf("%s: new connection refused: %w", s.name, err)
		}
		if !r.waitAOF {
			s.gate.waitAOF.Store(false)
		}
		if w != "" {
			s.warnReplicas([]string{w})
		}
		return nil
	}
}

// recheck runs the replication check again when a failed write made it stale, or
// the last one is older than recheckEvery; a check that fails leaves it stale, so
// the next write tries again.
func (s *Store) recheck(ctx context.Context) error {
	if !s.gate.stale.Load() && time.Now().UnixNano() < s.gate.due.Load() {
		return nil
	}
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	if !s.gate.stale.Swap(false) && time.Now().UnixNano() < s.gate.due.Load() {
		return nil
	}
	warns, waitAOF, err := checkReplication(ctx, s.client, s.replicas, s.asyncReplicas, false)
	if err != nil {
		s.gate.stale.Store(true)
		return fmt.Errorf("checking replication again: %w", err)
	}
	s.gate.due.Store(time.Now().Add(recheckEvery).UnixNano())
	s.gate.waitAOF.Store(waitAOF)
	s.warnReplicas(warns)
	return nil
}

// warnReplicas logs the replicas a configuration accepted without waiting for them,
// once per change of what was found.
func (s *Store) warnReplicas(warns []string) {
	s.gate.warnMu.Lock()
	defer s.gate.warnMu.Unlock()
	found := strings.Join(warns, "; ")
	if found == "" || found == s.gate.warned {
		return
	}
	s.gate.warned = found
	s.logger.Warn("redisstore: allowAsyncReplicas: a failover to a replica writes did not wait for hands out ids again",
		"store", s.name, "found", found)
}

// failedWrite makes the next write check replication again after err, unless err is
// the server's own reply to a script that ran, or a replica count.
func (s *Store) failedWrite(err error) {
	if err == nil || errors.Is(err, ErrNotReplicated) || errors.Is(err, context.Canceled) {
		return
	}
	var re redis.Error
	if !errors.As(err, &re) || redis.HasErrorPrefix(err, "READONLY") || redis.HasErrorPrefix(err, "NOREPLICAS") {
		s.gate.stale.Store(true)
	}
}
