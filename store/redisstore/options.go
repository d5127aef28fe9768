package redisstore

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds every call of a store made without WithTimeout.
const DefaultTimeout = 2 * time.Second

// Option configures a Store.
type Option func(*config)

// config is what the options set, from the defaults that buildConfig starts with.
type config struct {
	prefix   string
	timeout  time.Duration
	volatile bool
	// settings is the YAML path of the store's entry when it was opened from a
	// configuration: its errors then name the YAML setting, not the option.
	settings string
	// asyncReplicas: WithAsyncReplicas.
	asyncReplicas bool
	// replicas and replicaWait: WithReplicas.
	replicas    int
	replicaWait time.Duration
	logger      *slog.Logger
	clock       *clockOffset
}

func buildConfig(opts []Option) config {
	c := config{prefix: DefaultPrefix, timeout: DefaultTimeout, logger: slog.Default()}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithPrefix sets the start of every key name (default "cosid:"), so that tenants
// and tests can share one server. A prefix is at most 64 bytes of UTF-8 and holds no
// brace, which would move the keys' hash tags.
func WithPrefix(p string) Option { return func(c *config) { c.prefix = p } }

// WithTimeout bounds every call of the store, New's checks included (default
// DefaultTimeout). The client must honour context deadlines (go-redis:
// ContextTimeoutEnabled) for the bound to cut a call that waits on the network.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithVolatileServer makes New accept a server that can lose acknowledged writes,
// or one whose durability it cannot read because CONFIG is disabled (managed
// Redis). Such a server may forget reservations and leases when it restarts or fails
// over, and then hands the same ids out again; New logs a warning that says so.
func WithVolatileServer() Option { return func(c *config) { c.volatile = true } }

// WithReplicas makes every operation wait, with WAIT in the same round trip as its
// script, until its write has reached n replicas, for at most wait, and fail with
// ErrNotReplicated when fewer confirm it (default 0: no wait). A failover that
// promotes one of those replicas keeps the write; Redis replication is otherwise
// asynchronous. Not for Ring clients, whose WAIT would reach another shard.
func WithReplicas(n int, wait time.Duration) Option {
	return func(c *config) { c.replicas, c.replicaWait = n, wait }
}

// WithAsyncReplicas makes the store accept a master with replicas that its writes
// do not wait for (more than WithReplicas asks for). A failover to one of them can
// forget acknowledged reservations and hand the same ids out again; the store logs a
// warning at every start and after every reconnect that finds such replicas.
func WithAsyncReplicas() Option { return func(c *config) { c.asyncReplicas = true } }

// WithLogger sets the logger of start-up events, such as the warning about a
// volatile server (default slog.Default()). A nil logger logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		c.logger = l
	}
}

// clockOffset moves the store clock of the stores that share it, so that the store's
// own tests move Redis's clock instead of waiting for it (storetest.ClockMover). The
// lease scripts add it to Redis TIME.
type clockOffset struct{ ms atomic.Int64 }

// withClockOffset makes the store's clock Redis TIME moved by c. Tests only.
func withClockOffset(c *clockOffset) Option { return func(cfg *config) { cfg.clock = c } }

// acceptVolatile names what accepts a volatile server: the YAML setting for a store
// opened from a configuration, the option otherwise.
func (c config) acceptVolatile() string {
	if c.settings != "" {
		return "options: { allowVolatile: true } in " + c.settings
	}
	return "WithVolatileServer()"
}
