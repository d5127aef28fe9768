package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
)

// ErrUnsafeVersion means a member of the cluster runs an etcd release with a known
// loss of acknowledged writes after a crash: 3.5.0 to 3.5.2 could come back from a
// crash without writes it had applied (etcd's "data inconsistency" advisory,
// fixed in 3.5.3), and then hand the same ranges out again.
// WithUnsafeVersion (options: { allowUnsafeVersion: true }) accepts it.
var ErrUnsafeVersion = errors.New("an etcd member runs a release that can lose acknowledged writes after a crash")

// unsafeVersion reports whether an etcd release is one of those with the known loss.
func unsafeVersion(v string) bool {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 3 {
		return false
	}
	patch, _, _ := strings.Cut(parts[2], "-")
	p, err := strconv.Atoi(patch)
	return err == nil && parts[0] == "3" && parts[1] == "5" && p <= 2
}

// versionCheckEvery is how often calls check the members' releases again, so that
// a member upgraded, or added, while the store stays connected is seen.
const versionCheckEvery = time.Minute

// gate checks the releases of the members the client reaches. New does no I/O, so
// it runs before the first call, again after a failed call (a leader's crash, a
// member restarted, perhaps on another release) at most every recheckAfterFailure,
// and every versionCheckEvery.
type gate struct {
	due     atomic.Int64 // unix ns of the next check
	mu      sync.Mutex
	allow   bool // WithUnsafeVersion
	checked bool // a check has passed: the releases are known
	warned  string
}

// recheckAfterFailure spaces the checks after failed calls: during a failover every
// call may fail, and each check dials every endpoint.
const recheckAfterFailure = 5 * time.Second

// check runs the check when it is due: Status of every endpoint of the client, at
// once, each within half of ctx's time, since a member that is down must not hold
// the call up. A member that does not answer is skipped. When none answers, the
// call goes on if an earlier check passed (it fails by itself if the cluster is
// gone; the next call checks again), and fails if none has.
func (s *Store) check(ctx context.Context) error {
	g := &s.gate
	if time.Now().UnixNano() < g.due.Load() {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if time.Now().UnixNano() < g.due.Load() {
		return nil
	}
	wait := s.timeout / 2
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	eps := s.client.Endpoints()
	versions := make([]string, len(eps))
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			st, err := s.client.Status(ctx, ep)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", ep, err)
				return
			}
			versions[i] = st.Version
		})
	}
	wg.Wait()
	var bad []string
	answered := 0
	for i, v := range versions {
		if v == "" {
			continue
		}
		answered++
		if unsafeVersion(v) {
			bad = append(bad, eps[i]+" runs "+v)
		}
	}
	if answered == 0 {
		if g.checked {
			return nil
		}
		return fmt.Errorf("checking the members' releases (Status): no endpoint answered: %w", errors.Join(errs...))
	}
	if len(bad) > 0 {
		found := strings.Join(bad, ", ")
		if !g.allow {
			return fmt.Errorf("%w: %s; after a crash it may come back without the latest reservations and hand the same ids out again. Upgrade to etcd 3.5.3 or later (or 3.4), or accept the risk with options: { allowUnsafeVersion: true } (WithUnsafeVersion)",
				ErrUnsafeVersion, found)
		}
		if found != g.warned {
			g.warned = found
			s.logger.Warn("etcdstore: allowUnsafeVersion: a member's release can lose acknowledged writes after a crash", "store", s.name, "found", found)
		}
	}
	g.checked = true
	g.due.Store(time.Now().Add(versionCheckEvery).UnixNano())
	return nil
}

// failedCall makes the next call check the members again after err, unless err is
// the caller's, or the store's own verdict on what the cluster answered.
func (g *gate) failedCall(err error) {
	for _, known := range []error{context.Canceled, ErrUnsafeVersion, ErrCorrupt, store.ErrSealed, store.ErrExhausted,
		store.ErrInvalidArgument, store.ErrNoFreeSlot, store.ErrLeaseLost, store.ErrNamespaceConflict} {
		if errors.Is(err, known) {
			return
		}
	}
	if err == nil {
		return
	}
	soon := time.Now().Add(recheckAfterFailure).UnixNano()
	for {
		due := g.due.Load()
		if due <= soon || g.due.CompareAndSwap(due, soon) {
			return
		}
	}
}
