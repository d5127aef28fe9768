package server

import (
	"math/bits"
	"time"

	"github.com/cosid-go/cosid/store"
)

// Limits caps what one network request may ask of the served store, so that no
// caller exhausts a key, pins a slot for centuries or fills the database with one
// call (cosid.serve.limits in the configuration). A zero field takes its default
// (DefaultLimits). Each refusal is a 400 that names the setting raising it.
type Limits struct {
	// MaxReserve is the most values one /v1/store/reserve or one 4.x segment step
	// may take (cosid.serve.limits.max-reserve).
	MaxReserve int64
	// MaxSlots is the largest namespace limit a network call may ask for: an
	// acquire's limit, a raise-floor's, 2^machineBit of a 4.x machine call
	// (cosid.serve.limits.max-slots). Stores make slot records as slots are
	// taken (storekit.SlotsToProvision), so a new namespace costs a few, whatever
	// its limit.
	MaxSlots int
	// MaxLeaseTTL is the longest lease an acquire or renew, or a 4.x
	// safeGuardDuration, may ask for (cosid.serve.limits.max-lease-ttl).
	MaxLeaseTTL time.Duration
	// MaxStreams is the most StreamRanges and ReadRanges calls open at once, on HTTPServer's and
	// GRPCServer's listeners together (cosid.serve.limits.max-streams): each open
	// stream holds a goroutine and its transport's buffers, and HTTP/2 lets one
	// connection open many, so max-connections does not bound them. A further
	// stream is refused with resource_exhausted.
	MaxStreams int
	// StreamIdle is how long a StreamRanges or ReadRanges call may wait for its
	// client to read (cosid.serve.limits.stream-idle): a stream whose next range
	// the transport has not taken for that long, its flow-control window full, is
	// cut; so is a ReadRanges call that has sent all it was asked and is asked for
	// nothing more for that long.
	StreamIdle time.Duration
}

// The settings of Limits, as the refusals name them.
const (
	settingMaxReserve  = "cosid.serve.limits.max-reserve"
	settingMaxSlots    = "cosid.serve.limits.max-slots"
	settingMaxLeaseTTL = "cosid.serve.limits.max-lease-ttl"
	settingMaxStreams  = "cosid.serve.limits.max-streams"
	settingStreamIdle  = "cosid.serve.limits.stream-idle"
)

// DefaultLimits returns the limits of a Server without WithLimits: reserves of up to
// 2^20 values, namespaces of up to 2^16 slots (a 4.x machineBit of 16), leases of up
// to 10 minutes, 256 open streams, each cut after 30 seconds without a read.
func DefaultLimits() Limits {
	return Limits{MaxReserve: 1 << 20, MaxSlots: 1 << 16, MaxLeaseTTL: 10 * time.Minute,
		MaxStreams: 256, StreamIdle: 30 * time.Second}
}

// WithLimits sets the caps of the network routes; zero fields keep their defaults.
// A MaxSlots above store.MaxSlots is store.MaxSlots.
func WithLimits(l Limits) Option {
	return func(s *Server) { s.limits = l.withDefaults() }
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxReserve <= 0 {
		l.MaxReserve = d.MaxReserve
	}
	if l.MaxSlots <= 0 {
		l.MaxSlots = d.MaxSlots
	}
	l.MaxSlots = min(l.MaxSlots, store.MaxSlots)
	if l.MaxLeaseTTL <= 0 {
		l.MaxLeaseTTL = d.MaxLeaseTTL
	}
	if l.MaxStreams <= 0 {
		l.MaxStreams = d.MaxStreams
	}
	if l.StreamIdle <= 0 {
		l.StreamIdle = d.StreamIdle
	}
	return l
}

// maxMachineBit is the largest 4.x machineBit whose namespace fits MaxSlots.
func (l Limits) maxMachineBit() int { return bits.Len(uint(l.MaxSlots)) - 1 }

func (l Limits) checkReserve(what string, size int64) error {
	if size > l.MaxReserve {
		return badRequest("%s %d is over this server's limit of %d: raise %s", what, size, l.MaxReserve, settingMaxReserve)
	}
	return nil
}

func (l Limits) checkSlots(what string, limit int) error {
	if limit > l.MaxSlots {
		return badRequest("%s %d is over this server's limit of %d slots a namespace: raise %s", what, limit, l.MaxSlots, settingMaxSlots)
	}
	return nil
}

func (l Limits) checkTTL(what string, ttl time.Duration) error {
	if ttl > l.MaxLeaseTTL {
		return badRequest("%s %v is over this server's limit of %v: raise %s", what, ttl, l.MaxLeaseTTL, settingMaxLeaseTTL)
	}
	return nil
}

// caps returns the server's limits, the defaults for the ones not set.
func (s *Server) caps() Limits { return s.limits.withDefaults() }
