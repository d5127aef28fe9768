package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// maxCandidates bounds the free slots one read of a namespace offers an Acquire.
const maxCandidates = 16

// maxLeaseTTL is the longest lease etcd grants, in seconds.
const maxLeaseTTL = 9_000_000_000

// nsKeys are the etcd keys of a namespace.
type nsKeys struct{ meta, slots, held string }

func (s *Store) nsKeys(namespace string) nsKeys {
	base := s.prefix + namespace
	return nsKeys{meta: base + "/meta", slots: base + "/slots/", held: base + "/held/"}
}

func (k nsKeys) row(slot int) string  { return k.slots + strconv.Itoa(slot) }
func (k nsKeys) hold(slot int) string { return k.held + strconv.Itoa(slot) }

// nsRead is one consistent read of a namespace: its settings, its slot rows at their
// mod revisions, and the slots whose held key exists, as of one etcd revision.
type nsRead struct {
	found bool
	meta  meta
	rows  map[int]rowAt
	held  map[int]int64 // slot → mod revision of its held key
}

type rowAt struct {
	row
	rev int64 // 0: the row does not exist yet
}

func (r rowAt) slotRow() storekit.SlotRow { return r.SlotRow }

// Acquire implements store.SlotLeaseStore. It reads the namespace (creating it at
// its first use) and takes the first free slot whose row and held key are still as
// read, one transaction each, under an etcd lease granted for the TTL; when other
// acquirers took them all first it reads again. A new owner takes three round trips:
// the read, the grant and the take.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("%s: acquire: %w", s.name, err)
	}
	ttlSec, err := etcdTTL(req.TTL)
	if err != nil {
		return store.Lease{}, fmt.Errorf("%s: acquire a slot of namespace %q: %w", s.name, req.Namespace, err)
	}
	l, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.Lease, error) {
		return s.acquire(ctx, req, ttlSec)
	})
	if err != nil {
		return store.Lease{}, s.failed(ctx, fmt.Sprintf("acquire a slot of namespace %q for %q", req.Namespace, req.OwnerKey), err)
	}
	return l, nil
}

func (s *Store) acquire(ctx context.Context, req store.LeaseRequest, ttlSec int64) (store.Lease, error) {
	keys := s.nsKeys(req.Namespace)
	toleranceMs, ttlMs := storekit.MillisUp(req.Tolerance), storekit.MillisUp(req.TTL)
	g := &grant{s: s}
	defer g.revokeUnused()
	created := false
	for {
		ns, err := s.readNamespace(ctx, keys)
		switch {
		case err != nil:
			return store.Lease{}, err
		case !ns.found && created:
			return store.Lease{}, errors.New("the namespace is missing right after its creation")
		case !ns.found:
			if err := s.createNamespace(ctx, keys, meta{Limit: req.Limit, ToleranceMs: toleranceMs}); err != nil {
				return store.Lease{}, fmt.Errorf("creating the namespace: %w", err)
			}
			created = true
			continue
		case ns.meta.Limit != req.Limit || ns.meta.ToleranceMs != toleranceMs:
			return store.Lease{}, storekit.NamespaceConflict(ns.meta.Limit, ns.meta.ToleranceMs, req.Limit, req.Tolerance)
		}
		free := ns.candidates(req.OwnerKey, req.Preferred)
		if len(free) == 0 {
			return store.Lease{}, fmt.Errorf("all %d slots are leased: %w", ns.meta.Limit, store.ErrNoFreeSlot)
		}
		if err := g.ensure(ctx, ttlSec); err != nil {
			return store.Lease{}, err
		}
		for _, slot := range free {
			old := ns.rows[slot]
			next := row{old.Take(req.OwnerKey, g.nowMs, ttlMs, toleranceMs), g.id}
			resp, err := s.client.Txn(ctx).
				If(clientv3.Compare(clientv3.ModRevision(keys.row(slot)), "=", old.rev),
					clientv3.Compare(clientv3.ModRevision(keys.hold(slot)), "=", 0)).
				Then(clientv3.OpPut(keys.row(slot), next.encode()),
					clientv3.OpPut(keys.hold(slot), next.Incarnation, clientv3.WithLease(g.id))).
				Commit()
			if err != nil {
				return store.Lease{}, fmt.Errorf("taking slot %d: %w", slot, err)
			}
			if resp.Succeeded {
				g.used = true
				return next.Lease(req.Namespace, slot, g.nowMs), nil
			}
		}
	}
}

// readNamespace reads the namespace's settings, rows and held keys in one
// transaction, so that all three are of one revision.
func (s *Store) readNamespace(ctx context.Context, keys nsKeys) (nsRead, error) {
	resp, err := s.client.Txn(ctx).Then(
		clientv3.OpGet(keys.meta),
		clientv3.OpGet(keys.slots, clientv3.WithPrefix()),
		clientv3.OpGet(keys.held, clientv3.WithPrefix(), clientv3.WithKeysOnly()),
	).Commit()
	if err != nil {
		return nsRead{}, err
	}
	metaKvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(metaKvs) == 0 {
		return nsRead{}, nil
	}
	ns := nsRead{found: true, rows: map[int]rowAt{}, held: map[int]int64{}}
	if ns.meta, err = parseMeta(metaKvs[0].Value); err != nil {
		return nsRead{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, keys.meta, err)
	}
	for _, kv := range resp.Responses[1].GetResponseRange().GetKvs() {
		slot, ok := slotOf(string(kv.Key), keys.slots, ns.meta.Limit)
		if !ok {
			continue // a key of a namespace whose name continues this one's
		}
		r, err := parseRow(kv.Value)
		if err != nil {
			return nsRead{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, kv.Key, err)
		}
		ns.rows[slot] = rowAt{r, kv.ModRevision}
	}
	for _, kv := range resp.Responses[2].GetResponseRange().GetKvs() {
		if slot, ok := slotOf(string(kv.Key), keys.held, ns.meta.Limit); ok {
			ns.held[slot] = kv.ModRevision
		}
	}
	return ns, nil
}

// slotOf returns the slot of key, a row or held key under prefix, when its rest is
// a slot number below limit as the store writes it.
func slotOf(key, prefix string, limit int) (int, bool) {
	rest := strings.TrimPrefix(key, prefix)
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n >= limit || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// candidates returns up to maxCandidates free slots in the order an acquirer tries
// them (storekit.SlotCandidatesWhere). A slot is free when its held key is gone: released,
// or expired by etcd's lease.
func (ns nsRead) candidates(owner string, preferred int) []int {
	return storekit.SlotCandidatesWhere(storekit.SlotRows(ns.rows, rowAt.slotRow), ns.meta.Limit, owner, preferred, maxCandidates, func(slot int) bool {
		_, held := ns.held[slot]
		return !held
	})
}

// createNamespace records the namespace's limit and tolerance, unless another call
// created it first. Its rows are made as their slots are first taken.
func (s *Store) createNamespace(ctx context.Context, keys nsKeys, m meta) error {
	_, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(keys.meta), "=", 0)).
		Then(clientv3.OpPut(keys.meta, m.encode())).
		Commit()
	return err
}

// Renew implements store.SlotLeaseStore: it reads the lease's row and keeps its etcd
// lease alive, then extends the row with a compare-and-swap on it and its held key
// as read. When the etcd lease is gone (etcd expired it) or has another TTL, Renew
// grants one for ttl instead, moves the held key to it in the compare-and-swap, and
// revokes the one it replaced. A lease that etcd expired is renewed as long as no
// other acquisition took its slot.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := storekit.CheckRenew(l, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("%s: renew: %w", s.name, err)
	}
	ttlSec, err := etcdTTL(ttl)
	if err != nil {
		return store.Lease{}, fmt.Errorf("%s: renew slot %d of namespace %q: %w", s.name, l.Slot, l.Namespace, err)
	}
	var renewed store.Lease
	err = s.change(ctx, "renew", l, func(ctx context.Context, g *grant, m meta, r row, held bool) (row, error) {
		if held && r.EtcdLease != 0 {
			// Keep the slot's etcd lease alive when it was granted for this TTL: one
			// round trip and no write of etcd's log. The slot is held ttlSec from
			// the keep-alive, later than nowMs. Had the lease another TTL, it is
			// replaced below; a keep-alive that the row then does not follow only
			// keeps the slot held longer.
			nowMs := s.now().UnixMilli()
			if resp, err := s.client.KeepAliveOnce(ctx, r.EtcdLease); err == nil && resp.TTL == ttlSec {
				next := row{r.Renew(nowMs, storekit.MillisUp(ttl), m.ToleranceMs), r.EtcdLease}
				renewed = next.Lease(l.Namespace, l.Slot, nowMs)
				return next, nil
			} else if ctx.Err() != nil {
				return row{}, err
			}
		}
		if err := g.ensure(ctx, ttlSec); err != nil {
			return row{}, err
		}
		next := row{r.Renew(g.nowMs, storekit.MillisUp(ttl), m.ToleranceMs), g.id}
		renewed = next.Lease(l.Namespace, l.Slot, g.nowMs)
		return next, nil
	})
	if err != nil {
		return store.Lease{}, err
	}
	return renewed, nil
}

// Release implements store.SlotLeaseStore: it reads the lease's row, then frees it
// and deletes its held key with a compare-and-swap on both as read, and revokes the
// lease's etcd lease.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	if err := storekit.CheckLease(l); err != nil {
		return fmt.Errorf("%s: release: %w", s.name, err)
	}
	return s.change(ctx, "release", l, func(_ context.Context, _ *grant, _ meta, r row, _ bool) (row, error) {
		freed, err := r.Release(lastUsedMs)
		return row{freed, 0}, err
	})
}

// change reads the row of l and writes what f makes of it, with its held key on the
// etcd lease of the new row (none: deleted), by a compare-and-swap on both as read;
// when another call changed them in between, it reads again. It fails with
// ErrLeaseLost once the row is no longer l's. The etcd lease that the old row named
// is revoked once the swap is done.
func (s *Store) change(ctx context.Context, op string, l store.Lease, f func(ctx context.Context, g *grant, m meta, r row, held bool) (row, error)) error {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	g := &grant{s: s}
	defer g.revokeUnused()
	keys := s.nsKeys(l.Namespace)
	rowKey, holdKey := keys.row(l.Slot), keys.hold(l.Slot)
	for err == nil {
		var resp *clientv3.TxnResponse
		resp, err = s.client.Txn(ctx).Then(clientv3.OpGet(keys.meta), clientv3.OpGet(rowKey), clientv3.OpGet(holdKey)).Commit()
		if err != nil {
			break
		}
		var m meta
		var old row
		if m, old, err = parseLeaseRead(resp, keys.meta, rowKey); err == nil && !old.Holds(l) {
			err = fmt.Errorf("the slot was released or acquired again: %w", store.ErrLeaseLost)
		}
		if err != nil {
			break
		}
		var heldRev int64
		if kvs := resp.Responses[2].GetResponseRange().GetKvs(); len(kvs) > 0 {
			heldRev = kvs[0].ModRevision
		}
		var next row
		if next, err = f(ctx, g, m, old, heldRev != 0); err != nil {
			break
		}
		ops := []clientv3.Op{clientv3.OpPut(rowKey, next.encode())}
		switch {
		case next.EtcdLease == 0:
			ops = append(ops, clientv3.OpDelete(holdKey))
		case next.EtcdLease != old.EtcdLease || heldRev == 0:
			ops = append(ops, clientv3.OpPut(holdKey, next.Incarnation, clientv3.WithLease(next.EtcdLease)))
		}
		resp, err = s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(rowKey), "=", resp.Responses[1].GetResponseRange().GetKvs()[0].ModRevision),
				clientv3.Compare(clientv3.ModRevision(holdKey), "=", heldRev)).
			Then(ops...).
			Commit()
		if err == nil && resp.Succeeded {
			g.used = true
			if old.EtcdLease != 0 && old.EtcdLease != next.EtcdLease {
				s.revoke(ctx, old.EtcdLease)
			}
			return nil
		}
	}
	return s.failed(ctx, fmt.Sprintf("%s slot %d of namespace %q (fence %d) for %q", op, l.Slot, l.Namespace, l.Fence, l.OwnerKey), err)
}

// parseLeaseRead returns the namespace settings and the row of the read of change,
// which got the meta, row and held keys; a missing one means the lease is lost.
func parseLeaseRead(resp *clientv3.TxnResponse, metaKey, rowKey string) (meta, row, error) {
	metaKvs, rowKvs := resp.Responses[0].GetResponseRange().GetKvs(), resp.Responses[1].GetResponseRange().GetKvs()
	if len(metaKvs) == 0 || len(rowKvs) == 0 {
		return meta{}, row{}, fmt.Errorf("the slot was never leased: %w", store.ErrLeaseLost)
	}
	m, err := parseMeta(metaKvs[0].Value)
	if err != nil {
		return meta{}, row{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, metaKey, err)
	}
	r, err := parseRow(rowKvs[0].Value)
	if err != nil {
		return meta{}, row{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, rowKey, err)
	}
	return m, r, nil
}

// grant is an etcd lease granted for one call, with the clock read just before the
// grant: etcd counts the lease's TTL from a moment after nowMs, so a slot held on it
// stays held until at least nowMs plus the TTL.
type grant struct {
	s     *Store
	id    clientv3.LeaseID
	nowMs int64
	used  bool
}

// ensure grants the lease, once.
func (g *grant) ensure(ctx context.Context, ttlSec int64) error {
	if g.id != 0 {
		return nil
	}
	g.nowMs = g.s.now().UnixMilli()
	resp, err := g.s.client.Grant(ctx, ttlSec)
	if err != nil {
		return fmt.Errorf("granting an etcd lease of %ds: %w", ttlSec, err)
	}
	g.id = resp.ID
	return nil
}

// revokeUnused revokes the lease when the call ended without using it, or without
// knowing whether it did: a held key that the lease may carry goes with it, which
// leaves its slot free and its row's floor and ceiling in place.
func (g *grant) revokeUnused() {
	if g.id != 0 && !g.used {
		g.s.revoke(context.Background(), g.id)
	}
}

// revoke revokes an etcd lease that no held key needs any more. It is tidying:
// a lease left behind expires by itself, carrying nothing.
func (s *Store) revoke(ctx context.Context, id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	if _, err := s.client.Revoke(ctx, id); err != nil {
		s.logger.Debug("etcdstore: revoking an etcd lease no slot uses", "store", s.name, "lease", int64(id), "error", err)
	}
}

// etcdTTL returns ttl in whole seconds, rounded up, as etcd grants leases.
func etcdTTL(ttl time.Duration) (int64, error) {
	if ttl > time.Duration(maxLeaseTTL)*time.Second {
		return 0, fmt.Errorf("%w: TTL %v is longer than etcd's longest lease, %ds", store.ErrInvalidArgument, ttl, int64(maxLeaseTTL))
	}
	return max(int64((ttl+time.Second-1)/time.Second), 1), nil
}
