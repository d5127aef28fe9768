package server

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc/peer"

	"github.com/cosid-go/cosid"
)

// RateLimit caps how fast one caller takes ids (cosid.serve.limits.rate): the ids
// role's token is one caller, and so is each remote address when the ids role has no
// token. Every route that hands out ids takes from the same bucket: /v1, the Connect
// and gRPC IdService, 4.x's /ids, Leaf's and tinyid's routes. A request for n ids, or
// a range of n, costs n. The zero RateLimit limits nothing.
type RateLimit struct {
	// IDsPerSecond is the ids one caller may take a second, on average; 0 is no
	// limit.
	IDsPerSecond float64
	// Burst is the most ids one caller may take at once, after a pause; 0 is one
	// second's worth (IDsPerSecond rounded up). A request for more than Burst ids
	// is refused whatever the wait.
	Burst int
	// NewKeysPerSecond is the keys of keyed generators one caller may open a second
	// that are not open on this server (a key new in the store is one of them); 0 is
	// no limit. Its burst is one second's worth.
	NewKeysPerSecond float64
}

// The settings of RateLimit, as the refusals name them.
const (
	settingRate        = "cosid.serve.limits.rate.ids-per-second"
	settingBurst       = "cosid.serve.limits.rate.burst"
	settingNewKeysRate = "cosid.serve.limits.rate.new-keys-per-second"
)

// codeRateLimited is the API's error code of a caller over its rate.
const codeRateLimited = "rate_limited"

// MaxRateCallers is the most callers whose rate a Server keeps: past it, the
// callers idle longest are forgotten, and come back with a full burst.
const MaxRateCallers = 16384

// WithRateLimit limits the ids a caller takes per second (cosid.serve.limits.rate).
// A negative, NaN or infinite field is an error of New.
func WithRateLimit(l RateLimit) Option {
	return func(s *Server) {
		if err := l.check(); err != nil {
			s.optErr = fmt.Errorf("server: WithRateLimit: %w", err)
			return
		}
		if l.IDsPerSecond == 0 && l.NewKeysPerSecond == 0 {
			s.rate = nil
			return
		}
		s.rate = newRateLimiter(l, time.Now, MaxRateCallers)
	}
}

func (l RateLimit) check() error {
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(l.IDsPerSecond):
		return fmt.Errorf("ids-per-second %v: want a number ≥ 0", l.IDsPerSecond)
	case bad(l.NewKeysPerSecond):
		return fmt.Errorf("new-keys-per-second %v: want a number ≥ 0", l.NewKeysPerSecond)
	case l.Burst < 0:
		return fmt.Errorf("burst %d: want a number ≥ 0", l.Burst)
	}
	return nil
}

// rateLimiter holds a token bucket per caller, in a map bounded by most: lookups
// take no lock, and a new caller past the bound makes one call shrink the map.
type rateLimiter struct {
	cfg       RateLimit
	burst     int // of the ids bucket
	keysBurst int // of the new keys bucket
	now       func() time.Time
	most      int

	callers  sync.Map // caller → *callerRate
	n        atomic.Int64
	shrinker sync.Mutex
}

// callerRate is the buckets of one caller, and when it last called.
type callerRate struct {
	ids  *rate.Limiter // nil without IDsPerSecond
	keys *rate.Limiter // nil without NewKeysPerSecond
	last atomic.Int64  // unix ns
}

func newRateLimiter(l RateLimit, now func() time.Time, most int) *rateLimiter {
	rl := &rateLimiter{cfg: l, now: now, most: most, burst: l.Burst,
		keysBurst: max(int(math.Ceil(l.NewKeysPerSecond)), 1)}
	if rl.burst == 0 {
		rl.burst = max(int(math.Ceil(l.IDsPerSecond)), 1)
	}
	return rl
}

// rateError is a refusal of a caller over its rate: a 429 whose Retry-After is
// retry, rounded up to whole seconds.
type rateError struct {
	msg   string
	retry time.Duration
}

func (e *rateError) Error() string { return e.msg }

// retryAfter is the Retry-After of the refusal: whole seconds, rounded up, at least 1.
func (e *rateError) retryAfter() string {
	return fmt.Sprint(max(int64(math.Ceil(e.retry.Seconds())), 1))
}

// take charges n ids to caller, and one new key when newKey: nil, or the refusal
// of a caller over its rate, which charges nothing.
func (rl *rateLimiter) take(caller string, n int64, newKey bool) error {
	now := rl.now()
	c := rl.caller(caller, now)
	var keyRes *rate.Reservation
	if newKey && c.keys != nil {
		keyRes = c.keys.ReserveN(now, 1)
		if d := keyRes.DelayFrom(now); d > 0 {
			keyRes.CancelAt(now)
			return &rateError{retry: d, msg: fmt.Sprintf("this caller opens new keys faster than this server's limit of %v a second: wait %v, or raise %s",
				rl.cfg.NewKeysPerSecond, d.Round(time.Millisecond), settingNewKeysRate)}
		}
	}
	if c.ids == nil {
		return nil
	}
	if n > int64(rl.burst) {
		if keyRes != nil {
			keyRes.CancelAt(now)
		}
		return badRequest("%d ids at once are more than this server's burst of %d: ask for fewer, or raise %s", n, rl.burst, settingBurst)
	}
	res := c.ids.ReserveN(now, int(n))
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		if keyRes != nil {
			keyRes.CancelAt(now)
		}
		return &rateError{retry: d, msg: fmt.Sprintf("this caller takes ids faster than this server's limit of %v ids a second: wait %v, or raise %s",
			rl.cfg.IDsPerSecond, d.Round(time.Millisecond), settingRate)}
	}
	return nil
}

// caller returns the buckets of caller, made full when it has none.
func (rl *rateLimiter) caller(caller string, now time.Time) *callerRate {
	if v, ok := rl.callers.Load(caller); ok {
		c := v.(*callerRate)
		c.last.Store(now.UnixNano())
		return c
	}
	c := &callerRate{}
	if rl.cfg.IDsPerSecond > 0 {
		c.ids = rate.NewLimiter(rate.Limit(rl.cfg.IDsPerSecond), rl.burst)
	}
	if rl.cfg.NewKeysPerSecond > 0 {
		c.keys = rate.NewLimiter(rate.Limit(rl.cfg.NewKeysPerSecond), rl.keysBurst)
	}
	c.last.Store(now.UnixNano())
	v, loaded := rl.callers.LoadOrStore(strings.Clone(caller), c)
	if loaded {
		return v.(*callerRate)
	}
	if rl.n.Add(1) > int64(rl.most) {
		rl.shrink(now)
	}
	return c
}

// shrink forgets the callers whose buckets are full, which lose nothing by it, then,
// while over 7/8 of most, the callers idle longest. One call shrinks at a time; the
// others go on.
func (rl *rateLimiter) shrink(now time.Time) {
	if !rl.shrinker.TryLock() {
		return
	}
	defer rl.shrinker.Unlock()
	type entry struct {
		key  any
		c    *callerRate
		last int64
	}
	var busy []entry
	rl.callers.Range(func(k, v any) bool {
		c := v.(*callerRate)
		if rl.full(c, now) {
			if rl.callers.CompareAndDelete(k, v) {
				rl.n.Add(-1)
			}
			return true
		}
		busy = append(busy, entry{k, c, c.last.Load()})
		return true
	})
	keep := int64(rl.most) * 7 / 8
	if rl.n.Load() <= keep {
		return
	}
	slices.SortFunc(busy, func(a, b entry) int { return cmp.Compare(a.last, b.last) })
	for _, e := range busy {
		if rl.n.Load() <= keep {
			break
		}
		if rl.callers.CompareAndDelete(e.key, e.c) {
			rl.n.Add(-1)
		}
	}
}

// full reports whether c's buckets are full at now: a caller made anew is the same.
func (rl *rateLimiter) full(c *callerRate, now time.Time) bool {
	return (c.ids == nil || c.ids.TokensAt(now) >= float64(rl.burst)) &&
		(c.keys == nil || c.keys.TokensAt(now) >= float64(rl.keysBurst))
}

// size is the number of callers kept.
func (rl *rateLimiter) size() int { return int(rl.n.Load()) }

// callerRoleIDs is the caller of every call with the ids role's token: the server
// has one token a role, so its bearers share one rate.
const callerRoleIDs = "role:ids"

// callerOf is the caller of a call of the ids role from the remote address remote
// (host:port): the role's token when it has one, else the host.
func (s *Server) callerOf(remote string) string {
	if s.tokens[RoleIDs].set {
		return callerRoleIDs
	}
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return "addr:" + host
	}
	return "addr:" + remote
}

// charge takes n ids, and a new key when src's key is not open, from the rate of
// r's caller: nil when the server has no rate limit.
func (s *Server) charge(r *http.Request, src cosid.Source, n int64) error {
	if s.rate == nil {
		return nil
	}
	return s.rate.take(s.callerOf(r.RemoteAddr), n, s.newKey(src))
}

// newKey reports whether taking ids of src opens a key that is not open: only asked
// when new keys have a rate.
func (s *Server) newKey(src cosid.Source) bool {
	return s.rate.cfg.NewKeysPerSecond > 0 && src.Key() != "" && !src.Live()
}

// rpcCallerKey is the context key of the caller of a Connect or gRPC call of
// IdService, which the policy of its route puts there when the server has a rate
// limit.
type rpcCallerKey struct{}

// withCaller returns ctx with the caller of a call from remote, when the server
// has a rate limit.
func (s *Server) withCaller(ctx context.Context, remote string) context.Context {
	if s.rate == nil {
		return ctx
	}
	return context.WithValue(ctx, rpcCallerKey{}, s.callerOf(remote))
}

// grpcRemote is the remote address of a call of grpc-go.
func grpcRemote(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}

// chargeRPC takes n ids, and a new key when src's key is not open, from the rate of
// the caller of a Connect or gRPC call.
func (s *Server) chargeRPC(ctx context.Context, src cosid.Source, n int64) error {
	if s.rate == nil {
		return nil
	}
	caller, ok := ctx.Value(rpcCallerKey{}).(string)
	if !ok {
		caller = s.callerOf("")
	}
	return s.rate.take(caller, n, s.newKey(src))
}
