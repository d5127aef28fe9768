package etcdstore

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
)

// DefaultPrefix is the prefix of every key of a store made without WithPrefix.
const DefaultPrefix = "/cosid/"

// DefaultTimeout bounds every call of a store made without WithTimeout.
const DefaultTimeout = 2 * time.Second

// Option configures a Store.
type Option func(*config)

// config is what the options set, from the defaults that New starts with.
type config struct {
	prefix  string
	timeout time.Duration
	logger  *slog.Logger
	now     func() time.Time
	// unsafeVersion: WithUnsafeVersion.
	unsafeVersion bool
}

// WithPrefix puts every key of the store under prefix (default DefaultPrefix), so
// that tenants and tests share one cluster. The prefix must be 1–128 bytes of UTF-8
// without NUL; it is used as given, so end it with "/".
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// maxPrefixLen is the longest prefix WithPrefix allows, in bytes.
const maxPrefixLen = 128

// checkPrefix reports a prefix that WithPrefix does not allow, with an error wrapping
// store.ErrInvalidArgument.
func checkPrefix(p string) error {
	if p == "" || len(p) > maxPrefixLen || !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("%w: prefix %.40q must be 1–%d bytes of UTF-8 without NUL", store.ErrInvalidArgument, p, maxPrefixLen)
	}
	return nil
}

// WithTimeout bounds every call of the store, its retries included (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithLogger sets the logger of the store's own events, such as an etcd lease it
// could not revoke (default slog.Default()). A nil logger logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		c.logger = l
	}
}

// WithUnsafeVersion makes the store accept members that run etcd 3.5.0 to 3.5.2,
// which can lose acknowledged writes after a crash; the store logs a warning when it
// finds one.
func WithUnsafeVersion() Option { return func(c *config) { c.unsafeVersion = true } }

// withClock makes the store read now for the times of its answers. Tests only:
// etcd, not this clock, decides when a lease expires.
func withClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
