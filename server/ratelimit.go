package server

import (
	"cmp"
	"context"
	"fmt"
	"math"
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
	// is refused whatever the wait. A busy caller's requests take 10 ms of its
	// rate ahead (at most Burst/8), so after a pause it may get that many more.
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
// take no lock, and a new caller past the bound makes one call shrink the map. The
// ids role's token, the caller of every request when it is set, has its buckets
// outside the map: its requests, nearly all of a server's then, look nothing up.
type rateLimiter struct {
	cfg       RateLimit
	burst     int // of the ids bucket
	keysBurst int // of the new keys bucket
	now       func() time.Time
	most      int

	// ahead is the ids a request takes from its caller's bucket beyond its own,
	// when the bucket has them, for the caller's next requests to take without
	// the clock and the bucket's lock: 10 ms of the rate, at most an eighth of the
	// burst; 0 (every request to the bucket) below 100 ids a second. So a caller
	// may take up to ahead more than burst after a pause, never more than the rate.
	ahead   int64
	role    *callerRate // the caller callerRoleIDs
	callers sync.Map    // caller → *callerRate
	// lastFound is the caller last found in callers: a server whose requests come
	// from one address, or a few in turns, finds it without a lookup.
	lastFound atomic.Pointer[callerRate]
	n         atomic.Int64
	shrinker  sync.Mutex
}

// callerRate is the buckets of one caller, and when it last called.
type callerRate struct {
	ids  *rate.Limiter // nil without IDsPerSecond
	keys *rate.Limiter // nil without NewKeysPerSecond
	// credit is ids taken from ids ahead of the requests that use them (at most
	// rateLimiter.ahead at a time), which those requests take without a clock or
	// a lock; below 0 only for a moment, while a request that found too few gives
	// back what it took.
	credit atomic.Int64
	last   atomic.Int64 // unix ns, to lastEvery: the last call that read the clock
	name   string       // the caller's, its key in rateLimiter.callers
	gone   atomic.Bool  // forgotten: no longer in rateLimiter.callers
}

// lastEvery is how often a caller's last call is written down: the order in which
// shrink forgets callers needs no finer time, and a write per request would have
// the cores of a busy caller's requests contend for it.
const lastEvery = int64(time.Millisecond)

// seen records that c called at now, at most once in lastEvery.
func (c *callerRate) seen(now int64) {
	if now-c.last.Load() >= lastEvery {
		c.last.Store(now)
	}
}

func newRateLimiter(l RateLimit, now func() time.Time, most int) *rateLimiter {
	rl := &rateLimiter{cfg: l, now: now, most: most, burst: l.Burst,
		keysBurst: max(int(math.Ceil(l.NewKeysPerSecond)), 1)}
	if rl.burst == 0 {
		rl.burst = max(int(math.Ceil(l.IDsPerSecond)), 1)
	}
	rl.ahead = min(int64(rl.burst/8), int64(l.IDsPerSecond/100))
	rl.role = rl.newCaller()
	return rl
}

// newCaller returns the full buckets of a caller.
func (rl *rateLimiter) newCaller() *callerRate {
	c := &callerRate{}
	if rl.cfg.IDsPerSecond > 0 {
		c.ids = rate.NewLimiter(rate.Limit(rl.cfg.IDsPerSecond), rl.burst)
	}
	if rl.cfg.NewKeysPerSecond > 0 {
		c.keys = rate.NewLimiter(rate.Limit(rl.cfg.NewKeysPerSecond), rl.keysBurst)
	}
	return c
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
	c := rl.known(caller)
	if c != nil && !newKey && rl.ahead > 0 {
		// The path of nearly every request of a busy caller: ids its bucket gave
		// ahead, without a clock or a lock.
		if c.credit.Add(-n) >= 0 {
			return nil
		}
		c.credit.Add(n)
	}
	now := rl.now()
	if c == nil {
		c = rl.add(caller, now)
	} else {
		c.seen(now.UnixNano())
	}
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
	if keyRes == nil {
		if rl.ahead > 0 && c.ids.AllowN(now, int(n+rl.ahead)) {
			c.credit.Add(rl.ahead)
			return nil
		}
		if c.ids.AllowN(now, int(n)) {
			return nil
		}
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

// known returns the buckets of caller, nil when it has none: the last caller
// found, when it is caller again, without looking it up.
func (rl *rateLimiter) known(caller string) *callerRate {
	if caller == callerRoleIDs {
		return rl.role
	}
	if c := rl.lastFound.Load(); c != nil && c.name == caller && !c.gone.Load() {
		return c
	}
	if v, ok := rl.callers.Load(caller); ok {
		c := v.(*callerRate)
		rl.lastFound.Store(c)
		return c
	}
	return nil
}

// add returns the buckets of caller, made full at now unless another call made them.
func (rl *rateLimiter) add(caller string, now time.Time) *callerRate {
	c := rl.newCaller()
	c.name = strings.Clone(caller)
	c.last.Store(now.UnixNano())
	v, loaded := rl.callers.LoadOrStore(c.name, c)
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
			rl.forget(k, c)
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
		rl.forget(e.key, e.c)
	}
}

// forget removes c, the buckets of caller key, from the callers, and from
// lastFound: known no longer returns them, so that a caller never has two.
func (rl *rateLimiter) forget(key any, c *callerRate) {
	c.gone.Store(true)
	if rl.callers.CompareAndDelete(key, c) {
		rl.n.Add(-1)
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
// has one token a role, so its bearers share one rate. No remote host is written
// so.
const callerRoleIDs = "role:ids"

// callerOf is the caller of a call of the ids role from the remote address remote
// (host:port): the role's token when it has one, else the host, which is a part of
// remote: finding the caller allocates nothing.
func (s *Server) callerOf(remote string) string {
	if s.tokens[RoleIDs].set {
		return callerRoleIDs
	}
	// net.SplitHostPort's host of an address net/http writes, for less: the
	// address is host:port, or [host]:port for IPv6.
	if i := strings.LastIndexByte(remote, ':'); i > 0 {
		host := remote[:i]
		if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
			host = host[1 : len(host)-1]
		}
		return host
	}
	return remote
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
