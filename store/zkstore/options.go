package zkstore

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
)

// DefaultRoot is the znode under which a store made without WithRoot keeps its nodes.
const DefaultRoot = "/cosid"

// DefaultTimeout bounds every call of a store made without WithTimeout.
const DefaultTimeout = 2 * time.Second

// Option configures a Store.
type Option func(*config)

// config is what the options set, from the defaults that New starts with.
type config struct {
	root    string
	timeout time.Duration
	offset  *ClockOffset
}

// WithRoot puts every znode of the store under root (default DefaultRoot), so that
// tenants and tests share one ensemble. The root is an absolute ZooKeeper path
// without a trailing slash, of at most 128 bytes.
func WithRoot(root string) Option { return func(c *config) { c.root = root } }

// maxRootLen is the longest root WithRoot allows, in bytes.
const maxRootLen = 128

// checkRoot reports a root that WithRoot does not allow, with an error wrapping
// store.ErrInvalidArgument.
func checkRoot(root string) error {
	bad := len(root) < 2 || len(root) > maxRootLen || !utf8.ValidString(root) || root[0] != '/' ||
		root == "/zookeeper" || strings.HasPrefix(root, "/zookeeper/")
	for part := range strings.SplitSeq(strings.TrimPrefix(root, "/"), "/") {
		bad = bad || part == "" || part == "." || part == ".." ||
			strings.ContainsFunc(part, func(r rune) bool {
				return r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0xd800 && r <= 0xf8ff || r >= 0xfff0
			})
	}
	if bad {
		return fmt.Errorf("%w: root %.40q must be an absolute ZooKeeper path of 2–%d bytes, without a trailing slash, empty or dot elements, control characters, or /zookeeper", store.ErrInvalidArgument, root, maxRootLen)
	}
	return nil
}

// WithTimeout bounds every call of the store, its retries included (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// ClockOffset moves the store clock of the stores opened with it by a shared amount.
// It exists for tests of expiry (storetest.ClockMover), which would otherwise wait
// for ZooKeeper's clock; the zero value moves nothing.
type ClockOffset struct{ ms atomic.Int64 }

// Move moves the clock by d, rounded down to a whole millisecond; back when d is
// negative.
func (c *ClockOffset) Move(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// WithClockOffset makes the store read ZooKeeper's clock moved by c. It is for
// tests: every store of one test that shares c sees the same moved clock.
func WithClockOffset(c *ClockOffset) Option { return func(cfg *config) { cfg.offset = c } }
