package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
)

var (
	// ErrVolatileServer means the server can lose writes it acknowledged (no AOF, or
	// appendfsync other than always): after a restart it would hand the same ranges and
	// slots out again. WithVolatileServer accepts such a server.
	ErrVolatileServer = errors.New("the Redis server can lose acknowledged writes")
	// ErrDurabilityUnknown means New could not read the server's persistence settings,
	// because CONFIG is disabled or renamed (as on most managed Redis services).
	// WithVolatileServer accepts such a server.
	ErrDurabilityUnknown = errors.New("cannot read the Redis server's persistence settings")
)

// Store is a store.RangeStore and a store.SlotLeaseStore on Redis. It is safe for
// concurrent use, also by many processes sharing one server.
type Store struct {
	client  redis.UniversalClient
	owned   bool // Close closes client
	prefix  string
	timeout time.Duration
	name    string // "redisstore(127.0.0.1:6379, cosid:)", for errors
	clock   *clockOffset
	closed  atomic.Bool
	index   keyIndex // the keys this store added to the index of Keys (admin.go)
	// replicas, replicaWait: every write waits for this many replicas (WithReplicas).
	replicas    int
	replicaWait time.Duration
	// asyncReplicas: WithAsyncReplicas; gate: the replication check (replication.go).
	asyncReplicas bool
	gate          gate
	logger        *slog.Logger
}

var (
	_ store.RangeStore     = (*Store)(nil)
	_ store.SlotLeaseStore = (*Store)(nil)
	_ store.Timeouter      = (*Store)(nil)
)

// New returns a Store on client, which the application owns: Close leaves it open.
// client may be a standalone, Sentinel (failover), Cluster or Ring client.
//
// New reads the persistence settings of the server (of every master of a Cluster,
// every shard of a Ring) with CONFIG GET and refuses, with an error wrapping
// ErrVolatileServer, a server that runs without appendonly yes and appendfsync
// always, since it can forget acknowledged reservations on a restart; where CONFIG
// is refused, the error wraps ErrDurabilityUnknown. Either error also wraps
// store.ErrNotSetUp, not store.ErrUnavailable: it lasts until an operator acts.
// WithVolatileServer accepts either, with a warning in the log. New does this within the store's timeout.
func New(client redis.UniversalClient, opts ...Option) (*Store, error) {
	cfg := buildConfig(opts)
	if client == nil {
		return nil, fmt.Errorf("redisstore: %w: nil Redis client", store.ErrInvalidArgument)
	}
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	if err := checkReplicas(cfg, client); err != nil {
		return nil, fmt.Errorf("redisstore: %w: %w", store.ErrInvalidArgument, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	return newStore(ctx, client, false, cfg)
}

func checkConfig(cfg config) error {
	if cfg.timeout <= 0 {
		return fmt.Errorf("redisstore: %w: timeout %v, want > 0", store.ErrInvalidArgument, cfg.timeout)
	}
	if err := checkPrefix(cfg.prefix); err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	return nil
}

func newStore(ctx context.Context, client redis.UniversalClient, owned bool, cfg config) (*Store, error) {
	s := &Store{
		client:  client,
		owned:   owned,
		prefix:  cfg.prefix,
		timeout: cfg.timeout,
		name:    fmt.Sprintf("redisstore(%s, %s)", serverName(client), cfg.prefix),
		clock:   cfg.clock,

		replicas:    cfg.replicas,
		replicaWait: cfg.replicaWait,

		asyncReplicas: cfg.asyncReplicas,
		logger:        cfg.logger,
	}
	if s.clock == nil {
		s.clock = new(clockOffset)
	}
	if !honoursDeadlines(client) {
		cfg.logger.Warn("redisstore: the Redis client ignores context deadlines (go-redis: ContextTimeoutEnabled is false), so the store's timeout cannot cut a call that waits on the network; its own read and write timeouts bound it",
			"store", s.name, "timeout", cfg.timeout)
	}
	err := checkDurability(ctx, client)
	switch {
	case err == nil:
	case cfg.volatile && (errors.Is(err, ErrVolatileServer) || errors.Is(err, ErrDurabilityUnknown)):
		cfg.logger.Warn("redisstore: allowVolatile: a restart may forget reservations and hand out ids again",
			"store", s.name, "found", err.Error())
	case errors.Is(err, ErrVolatileServer):
		return nil, setupError{fmt.Errorf("%s: %w; a restart would forget the latest reservations and leases and hand the same ids out again; run the server with appendonly yes and appendfsync always, or accept the risk with %s",
			s.name, err, cfg.acceptVolatile())}
	case errors.Is(err, ErrDurabilityUnknown):
		return nil, setupError{fmt.Errorf("%s: %w; where the service keeps an append-only file fsynced on every write, or the risk is accepted, set %s",
			s.name, err, cfg.acceptVolatile())}
	default:
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if err := s.gateOpen(ctx, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	cfg.logger.Debug("redisstore: ready", "store", s.name, "timeout", cfg.timeout, "replicas", s.replicas, "waitAOF", s.gate.waitAOF.Load())
	return s, nil
}

// setupError is a refusal of the server's settings, which lasts until an operator
// changes them or accepts the risk: it matches store.ErrNotSetUp, so that no caller
// takes it for an outage that waiting ends, and reads as its cause.
type setupError struct{ error }

func (e setupError) Unwrap() []error { return []error{store.ErrNotSetUp, e.error} }

// serverName names the server of client for errors: its address, or its addresses.
func serverName(client redis.UniversalClient) string {
	switch c := client.(type) {
	case *redis.Client:
		if o := c.Options(); o.Addr != "FailoverClient" {
			return o.Addr
		}
		return "sentinel master"
	case *redis.ClusterClient:
		return "cluster " + strings.Join(c.Options().Addrs, ",")
	case *redis.Ring:
		return "ring " + strings.Join(slices.Sorted(maps.Values(c.Options().Addrs)), ",")
	}
	return fmt.Sprintf("%T", client)
}

// honoursDeadlines reports whether client ends a call at its context's deadline;
// true where its options cannot be read.
func honoursDeadlines(client redis.UniversalClient) bool {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	}
	return true
}

// checkDurability reads appendonly and appendfsync of the server, or of every master
// of a Cluster and every shard of a Ring, and reports a server that can lose
// acknowledged writes.
func checkDurability(ctx context.Context, client redis.UniversalClient) error {
	each := func(ctx context.Context, m *redis.Client) error {
		if err := durability(ctx, m); err != nil {
			return fmt.Errorf("server %s: %w", m.Options().Addr, err)
		}
		return nil
	}
	switch c := client.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, each)
	case *redis.Ring:
		return c.ForEachShard(ctx, each)
	}
	return durability(ctx, client)
}

func durability(ctx context.Context, c redis.Cmdable) error {
	settings, err := c.ConfigGet(ctx, "append*").Result()
	if err != nil {
		if ctx.Err() != nil || isNetError(err) {
			return fmt.Errorf("cannot reach the server: %w", err)
		}
		return fmt.Errorf("%w: CONFIG GET is refused (%w)", ErrDurabilityUnknown, err)
	}
	var bad []string
	if v := settings["appendonly"]; v != "yes" {
		bad = append(bad, fmt.Sprintf("appendonly is %q, want \"yes\"", v))
	}
	if v := settings["appendfsync"]; v != "always" {
		bad = append(bad, fmt.Sprintf("appendfsync is %q, want \"always\"", v))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrVolatileServer, strings.Join(bad, ", "))
	}
	return nil
}

// isNetError reports an error of the connection rather than a reply of the server.
func isNetError(err error) bool {
	var re redis.Error
	return !errors.As(err, &re)
}

// String names the store as its errors do: its server and its prefix.
func (s *Store) String() string { return s.name }

// Timeout reports the bound of every call of the store (store.Timeouter).
func (s *Store) Timeout() time.Duration { return s.timeout }

// Prefix reports the start of the store's key names.
func (s *Store) Prefix() string { return s.prefix }

// Close makes later calls fail with store.ErrClosed; it closes the client only when the
// store opened it from a configuration.
func (s *Store) Close() error {
	if s.closed.Swap(true) || !s.owned {
		return nil
	}
	return s.client.Close()
}

// begin bounds a call by the store's timeout, and refuses it on a closed store or an
// ended context.
func (s *Store) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return nil, nil, store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	return ctx, cancel, nil
}

// offset returns the test clock's offset as a script argument.
func (s *Store) offset() int64 { return s.clock.ms.Load() }
