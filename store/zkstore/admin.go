package zkstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Admin = (*Store)(nil)

// keyReaders bounds the range znodes a page of Keys reads at once. The client
// pipelines its requests on one connection, so a page of thousands of keys takes
// about its count over keyReaders round trips.
const keyReaders = 64

// Keys implements store.Admin. ZooKeeper lists a znode's children in one answer and
// in no order, and escaping does not keep the byte order of keys, so Keys lists the
// names of all range znodes, sorts them by their keys, and reads the values of the
// first limit after after. The sorted listing serves the next pages for as long as
// no range znode is created or deleted, which one read of the parent's stat tells: a
// store of N keys streams in pages for one listing and a sort of N names, and then a
// stat and limit reads a page. The ensemble's jute.maxbuffer and the client's
// zk.WithMaxBufferSize, when set, bound how many names one listing can answer.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("%s: keys: %w", s.name, err)
	}
	keys, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) ([]store.KeyInfo, error) {
		return s.listKeys(ctx, prefix, after, limit)
	})
	if err != nil {
		return nil, s.failed(fmt.Sprintf("keys of prefix %q after %q", prefix, after), err)
	}
	return keys, nil
}

// listing is the keys of the range znodes in byte order, as listed when the parent
// znode had its Czxid and Pzxid: the Pzxid moves with every creation or deletion of
// a child, and the Czxid with a new parent, so equal ones mean the same children.
type listing struct {
	czxid, pzxid int64
	keys         []string
}

func (s *Store) listKeys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	dir := s.root + "/ranges"
	l, err := s.listing(ctx, dir)
	if err != nil || l == nil {
		return nil, err
	}
	i, _ := slices.BinarySearch(l.keys, prefix)
	j, found := slices.BinarySearch(l.keys, after)
	if found {
		j++ // the first key above after
	}
	i = max(i, j)
	n := i
	for n < len(l.keys) && strings.HasPrefix(l.keys[n], prefix) {
		n++
	}
	names := l.keys[i:n]
	// A key deleted between the listing and its read leaves a gap that the next
	// candidates fill, so that only the last page is short.
	var out []store.KeyInfo
	for len(out) < limit && len(names) > 0 {
		batch := names[:min(limit-len(out), len(names))]
		names = names[len(batch):]
		got, err := s.readValues(ctx, dir, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// listing returns the sorted keys of the range znodes under dir: the last listing
// when the children of dir are still the same, else a new one. It is nil when dir
// does not exist.
func (s *Store) listing(ctx context.Context, dir string) (*listing, error) {
	stat, err := call(ctx, func() (*zk.Stat, error) {
		ok, stat, err := s.conn.Exists(dir)
		if err == nil && !ok {
			err = zk.ErrNoNode
		}
		return stat, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if l := s.list.Load(); l != nil && l.czxid == stat.Czxid && l.pzxid == stat.Pzxid {
		return l, nil
	}
	type listed struct {
		names []string
		stat  *zk.Stat
	}
	got, err := call(ctx, func() (listed, error) {
		names, stat, err := s.conn.Children(dir)
		return listed{names, stat}, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l := &listing{czxid: got.stat.Czxid, pzxid: got.stat.Pzxid, keys: make([]string, len(got.names))}
	for i, name := range got.names {
		key, ok := unescape(name)
		if !ok {
			return nil, fmt.Errorf("%w: %s/%s is no name of a key that the store escaped", ErrCorrupt, dir, name)
		}
		l.keys[i] = key
	}
	slices.Sort(l.keys)
	s.list.Store(l)
	return l, nil
}

// readValues reads the range znodes of keys under dir, keyReaders at a time, and
// returns those that exist in the order of keys. The reads are the client's bare
// Gets, inside one call for the lot: a goroutine per read and no more.
func (s *Store) readValues(ctx context.Context, dir string, keys []string) ([]store.KeyInfo, error) {
	return call(ctx, func() ([]store.KeyInfo, error) {
		var (
			infos = make([]store.KeyInfo, len(keys))
			found = make([]bool, len(keys))
			errs  = make([]error, len(keys))
			wg    sync.WaitGroup
			sem   = make(chan struct{}, keyReaders)
		)
		for i, key := range keys {
			if ctx.Err() != nil {
				break // call has answered already: start no more reads
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				path := dir + "/" + escape(key)
				data, _, err := s.conn.Get(path)
				switch {
				case errors.Is(err, zk.ErrNoNode):
					return
				case err != nil:
					errs[i] = err
					return
				}
				v, err := parseValue(data)
				if err != nil {
					errs[i] = fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
					return
				}
				infos[i], found[i] = store.KeyInfo{Key: key, Next: v.Next, Sealed: v.Sealed}, true
			})
		}
		wg.Wait()
		if err := errors.Join(append(errs, ctx.Err())...); err != nil {
			return nil, err
		}
		out := infos[:0]
		for i, info := range infos {
			if found[i] {
				out = append(out, info)
			}
		}
		return out, nil
	})
}

// unescape returns the key whose escaped form is name, or ok false when name is no
// form that escape writes.
func unescape(name string) (key string, ok bool) {
	key, err := url.PathUnescape(name)
	return key, err == nil && escape(key) == name
}

// RaiseTo implements store.Admin with the compare-and-swap of Reserve, after
// forgetting what this store knew of the key, so that Before is the value on the
// ensemble and not one that another process has since moved.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("%s: raise: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	var r store.Raised
	if err == nil {
		err = s.inTurn(ctx, key, func(k *keyState) error { k.known = false; return nil })
	}
	if err == nil {
		err = s.update(ctx, key, func(k *keyState) (*value, error) {
			if !k.exists {
				r = store.Raised{Key: key, After: next, Created: true}
				return &value{Next: next}, nil
			}
			r = store.Raised{Key: key, Before: k.next, After: max(k.next, next), Sealed: k.sealed}
			if r.After == k.next {
				return nil, nil
			}
			return &value{Next: r.After, Sealed: k.sealed}, nil
		})
	}
	if err != nil {
		return store.Raised{}, s.failed(fmt.Sprintf("raise %q to %d", key, next), err)
	}
	return r, nil
}

// Delete implements store.Admin. It deletes the key's znode in the key's turn, so
// that the reservations of this store read the key afresh after it; those of other
// processes find their compare-and-swap missing the znode and read it afresh too.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: delete: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err == nil {
		err = s.inTurn(ctx, key, func(k *keyState) error {
			k.known = false
			_, err := call(ctx, func() (struct{}, error) { return struct{}{}, s.conn.Delete(s.rangePath(key), -1) })
			if errors.Is(err, zk.ErrNoNode) {
				return nil
			}
			return err
		})
	}
	if err != nil {
		return s.failed(fmt.Sprintf("delete %q", key), err)
	}
	return nil
}

// inTurn runs f on key's state in key's turn.
func (s *Store) inTurn(ctx context.Context, key string, f func(*keyState) error) error {
	turn, err := s.keys.Take(ctx, key)
	if err != nil {
		return err
	}
	defer turn.Give()
	return f(&turn.State)
}

// Slots implements store.Admin with the reads of Acquire: the store clock, the
// namespace's settings and its slot znodes.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("%s: slots: %w", s.name, err)
	}
	nowMs, ns, err := s.readForAdmin(ctx, namespace)
	if err != nil {
		return store.NamespaceInfo{}, s.failed(fmt.Sprintf("slots of namespace %q", namespace), err)
	}
	info := storekit.NewNamespaceInfo(namespace, ns.meta.Limit, ns.meta.ToleranceMs, nowMs)
	info.Slots = storekit.ListedSlots(ns.rows, rowAt.slotRow)
	return info, nil
}

// LeaseOf implements store.Admin with the reads of Slots.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("%s: lease of: %w", s.name, err)
	}
	what := fmt.Sprintf("lease of %q in namespace %q", ownerKey, namespace)
	nowMs, ns, err := s.readForAdmin(ctx, namespace)
	if err != nil {
		return store.Lease{}, s.failed(what, err)
	}
	found, ok := storekit.OwnedSlot(ns.rows, rowAt.slotRow, ownerKey)
	if !ok {
		return store.Lease{}, s.failed(what, store.ErrNotFound)
	}
	return ns.rows[found].Lease(namespace, found, nowMs), nil
}

// readForAdmin reads namespace as Acquire does, failing with store.ErrNotFound when
// it does not exist.
func (s *Store) readForAdmin(ctx context.Context, namespace string) (int64, nsRead, error) {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err != nil {
		return 0, nsRead{}, err
	}
	nowMs, ns, err := s.readNamespace(ctx, s.nsPath(namespace))
	switch {
	case err != nil:
		return 0, nsRead{}, err
	case !ns.found:
		return 0, nsRead{}, store.ErrNotFound
	}
	return nowMs, ns, nil
}

// RaiseFloor implements store.Admin. It reads the namespace's settings (creating the
// namespace when req allows) and the slot's znode, and raises the row's NextFloorMs
// with a versioned Set, or creates the row of a slot never taken with fence 0, which
// the slot's first Acquire turns into fence 1; when another call changed either in
// between, it reads again.
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("%s: raise floor: %w", s.name, err)
	}
	info, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.SlotInfo, error) {
		return s.raiseFloor(ctx, req)
	})
	if err != nil {
		return store.SlotInfo{}, s.failed(fmt.Sprintf("raise the floor of slot %d of namespace %q to %d", req.Slot, req.Namespace, req.FloorMs), err)
	}
	return info, nil
}

func (s *Store) raiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	path := s.nsPath(req.Namespace)
	rowPath := path + "/" + strconv.Itoa(req.Slot)
	toleranceMs := storekit.MillisUp(req.Tolerance)
	for {
		data, _, err := s.get(ctx, path)
		switch {
		case errors.Is(err, zk.ErrNoNode) && req.Limit == 0:
			return store.SlotInfo{}, store.ErrNotFound
		case errors.Is(err, zk.ErrNoNode):
			err := s.create(ctx, path, encode(meta{Limit: req.Limit, ToleranceMs: toleranceMs}))
			if err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return store.SlotInfo{}, fmt.Errorf("creating the namespace: %w", err)
			}
			continue
		case err != nil:
			return store.SlotInfo{}, err
		}
		m, err := parseMeta(data)
		switch {
		case err != nil:
			return store.SlotInfo{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
		case req.Limit != 0 && (m.Limit != req.Limit || m.ToleranceMs != toleranceMs):
			return store.SlotInfo{}, storekit.NamespaceConflict(m.Limit, m.ToleranceMs, req.Limit, req.Tolerance)
		case req.Slot >= m.Limit:
			return store.SlotInfo{}, fmt.Errorf("%w: slot %d of a namespace whose limit is %d", store.ErrInvalidArgument, req.Slot, m.Limit)
		}
		data, stat, err := s.get(ctx, rowPath)
		var r storekit.SlotRow
		switch {
		case errors.Is(err, zk.ErrNoNode):
			stat = nil
		case err != nil:
			return store.SlotInfo{}, err
		default:
			if r, err = parseRow(data); err != nil {
				return store.SlotInfo{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, rowPath, err)
			}
		}
		if r.Owner != "" {
			return store.SlotInfo{}, fmt.Errorf("the slot is %q's: %w", r.Owner, store.ErrSlotHeld)
		}
		if r.NextFloorMs >= req.FloorMs {
			return r.Info(req.Slot), nil
		}
		r.NextFloorMs = req.FloorMs
		if stat != nil {
			_, err = s.set(ctx, rowPath, encodeRow(r), stat.Version)
		} else {
			err = s.create(ctx, rowPath, encodeRow(r))
		}
		switch {
		case err == nil:
			return r.Info(req.Slot), nil
		case !errors.Is(err, zk.ErrBadVersion) && !errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, zk.ErrNoNode):
			return store.SlotInfo{}, fmt.Errorf("writing slot %d: %w", req.Slot, err)
		}
	}
}
