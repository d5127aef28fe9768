package zkstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Bounds of an Acquire: the free slots one read of a namespace offers it, and the
// slot znodes it reads at once.
const (
	maxCandidates = 16
	readers       = 8
)

func (s *Store) nsPath(namespace string) string { return s.root + "/slots/" + escape(namespace) }

// rowAt is a slot's row as read, at its znode version; absent rows have never been
// taken.
type rowAt struct {
	storekit.SlotRow
	exists  bool
	version int32
}

func (r rowAt) slotRow() storekit.SlotRow { return r.SlotRow }

// nsRead is a read of a namespace: its settings, and the rows of its slots.
type nsRead struct {
	found bool
	meta  meta
	rows  map[int]rowAt
}

// Acquire implements store.SlotLeaseStore. It reads the store clock, the namespace
// (creating it at its first use) and its slot znodes, and takes the first free slot
// with a versioned Set of its znode (a Create for a slot never taken); when other
// acquirers took every candidate first it reads again.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("%s: acquire: %w", s.name, err)
	}
	l, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.Lease, error) {
		return s.acquire(ctx, req)
	})
	if err != nil {
		return store.Lease{}, s.failed(fmt.Sprintf("acquire a slot of namespace %q for %q", req.Namespace, req.OwnerKey), err)
	}
	return l, nil
}

func (s *Store) acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	path := s.nsPath(req.Namespace)
	toleranceMs, ttlMs := storekit.MillisUp(req.Tolerance), storekit.MillisUp(req.TTL)
	created := false
	for {
		nowMs, ns, err := s.readNamespace(ctx, path)
		switch {
		case err != nil:
			return store.Lease{}, err
		case !ns.found && created:
			return store.Lease{}, errors.New("the namespace is missing right after its creation")
		case !ns.found:
			err := s.create(ctx, path, encode(meta{Limit: req.Limit, ToleranceMs: toleranceMs}))
			if err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return store.Lease{}, fmt.Errorf("creating the namespace: %w", err)
			}
			created = true
			continue
		case ns.meta.Limit != req.Limit || ns.meta.ToleranceMs != toleranceMs:
			return store.Lease{}, storekit.NamespaceConflict(ns.meta.Limit, ns.meta.ToleranceMs, req.Limit, req.Tolerance)
		}
		rows := storekit.SlotRows(ns.rows, rowAt.slotRow)
		free := storekit.SlotCandidates(rows, ns.meta.Limit, req.OwnerKey, req.Preferred, nowMs, maxCandidates)
		if len(free) == 0 {
			return store.Lease{}, fmt.Errorf("all %d slots are leased: %w", ns.meta.Limit, store.ErrNoFreeSlot)
		}
		for _, slot := range free {
			old := ns.rows[slot]
			next := old.Take(req.OwnerKey, nowMs, ttlMs, toleranceMs)
			slotPath := path + "/" + strconv.Itoa(slot)
			if old.exists {
				_, err = s.set(ctx, slotPath, encodeRow(next), old.version)
			} else {
				err = s.create(ctx, slotPath, encodeRow(next))
			}
			switch {
			case err == nil:
				return next.Lease(req.Namespace, slot, nowMs), nil
			case !errors.Is(err, zk.ErrBadVersion) && !errors.Is(err, zk.ErrNodeExists):
				return store.Lease{}, fmt.Errorf("taking slot %d: %w", slot, err)
			}
		}
	}
}

// readNamespace reads the store clock, the namespace's settings and the rows of its
// slots. The clock is read by a write that lies before the slot's compare-and-swap,
// so a row that expired by it has expired when the swap lands.
func (s *Store) readNamespace(ctx context.Context, path string) (int64, nsRead, error) {
	var (
		wg          sync.WaitGroup
		nowMs       int64
		clockErr    error
		children    []string
		childrenErr error
		metaData    []byte
		metaErr     error
	)
	wg.Go(func() { nowMs, clockErr = s.now(ctx) })
	wg.Go(func() {
		children, childrenErr = call(ctx, func() ([]string, error) {
			c, _, err := s.conn.Children(path)
			return c, err
		})
	})
	metaData, _, metaErr = s.get(ctx, path)
	wg.Wait()
	switch {
	case clockErr != nil:
		return 0, nsRead{}, clockErr
	case errors.Is(metaErr, zk.ErrNoNode):
		return nowMs, nsRead{}, nil
	case metaErr != nil:
		return 0, nsRead{}, metaErr
	case errors.Is(childrenErr, zk.ErrNoNode):
		return nowMs, nsRead{}, nil // created between the reads: read again
	case childrenErr != nil:
		return 0, nsRead{}, childrenErr
	}
	ns := nsRead{found: true, rows: map[int]rowAt{}}
	var err error
	if ns.meta, err = parseMeta(metaData); err != nil {
		return 0, nsRead{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	}
	rows, err := s.readRows(ctx, path, children, ns.meta.Limit)
	if err != nil {
		return 0, nsRead{}, err
	}
	ns.rows = rows
	return nowMs, ns, nil
}

// readRows reads the slot znodes among children, readers at a time.
func (s *Store) readRows(ctx context.Context, path string, children []string, limit int) (map[int]rowAt, error) {
	var (
		mu    sync.Mutex
		rows  = map[int]rowAt{}
		first error
		wg    sync.WaitGroup
		sem   = make(chan struct{}, readers)
	)
	for _, name := range children {
		slot, err := strconv.Atoi(name)
		if err != nil || slot < 0 || slot >= limit || strconv.Itoa(slot) != name {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			data, stat, err := s.get(ctx, path+"/"+name)
			var r storekit.SlotRow
			if err == nil {
				if r, err = parseRow(data); err != nil {
					err = fmt.Errorf("%w: %s/%s: %w", ErrCorrupt, path, name, err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				rows[slot] = rowAt{r, true, stat.Version}
			case first == nil && !errors.Is(err, zk.ErrNoNode):
				first = err
			}
		})
	}
	wg.Wait()
	return rows, first
}

// Renew implements store.SlotLeaseStore: it reads the store clock, the namespace's
// settings and the lease's row, and writes the renewed row with a versioned Set; when
// another call changed the row in between, it reads again.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	return storekit.RenewLease(ctx, s.name, s.change, l, ttl)
}

// Release implements store.SlotLeaseStore: it reads the lease's row and frees it
// with a versioned Set. It does not read the store clock: a release changes no time.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	return storekit.ReleaseLease(ctx, s.name, s.change, l, lastUsedMs)
}

// change is the store's storekit.SlotChange: a versioned Set of the row's znode.
func (s *Store) change(ctx context.Context, op string, l store.Lease, clock bool, f func(nowMs, toleranceMs int64, r storekit.SlotRow) (storekit.SlotRow, error)) error {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	path := s.nsPath(l.Namespace)
	rowPath := path + "/" + strconv.Itoa(l.Slot)
	for err == nil {
		var (
			wg       sync.WaitGroup
			nowMs    int64
			clockErr error
			metaData []byte
			metaErr  error
			data     []byte
			stat     *zk.Stat
		)
		if clock {
			wg.Go(func() { nowMs, clockErr = s.now(ctx) })
		}
		wg.Go(func() { metaData, _, metaErr = s.get(ctx, path) })
		data, stat, err = s.get(ctx, rowPath)
		wg.Wait()
		var m meta
		var r storekit.SlotRow
		switch {
		case errors.Is(err, zk.ErrNoNode), errors.Is(metaErr, zk.ErrNoNode):
			err = fmt.Errorf("the slot was never leased: %w", store.ErrLeaseLost)
			continue
		case err != nil:
			continue
		case metaErr != nil:
			err = metaErr
			continue
		case clockErr != nil:
			err = clockErr
			continue
		}
		if m, err = parseMeta(metaData); err != nil {
			err = fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
			continue
		}
		if r, err = parseRow(data); err != nil {
			err = fmt.Errorf("%w: %s: %w", ErrCorrupt, rowPath, err)
			continue
		}
		if !r.Holds(l) {
			err = fmt.Errorf("the slot was released or acquired again: %w", store.ErrLeaseLost)
			continue
		}
		var next storekit.SlotRow
		if next, err = f(nowMs, m.ToleranceMs, r); err != nil {
			continue
		}
		_, err = s.set(ctx, rowPath, encodeRow(next), stat.Version)
		if err == nil {
			return nil
		}
		if errors.Is(err, zk.ErrBadVersion) {
			err = nil
		}
	}
	return s.failed(fmt.Sprintf("%s slot %d of namespace %q (fence %d) for %q", op, l.Slot, l.Namespace, l.Fence, l.OwnerKey), err)
}
