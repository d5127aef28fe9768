package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// maxCandidates bounds the free slots one read of a namespace offers an Acquire.
const maxCandidates = 16

// metaSuffix ends the _id of a namespace's settings document; a slot's row ends in
// its number. Neither holds '#', so the last '#' of an _id splits it.
const metaSuffix = "meta"

func docID(namespace, suffix string) string { return namespace + "#" + suffix }

// metaDoc is a namespace's settings, fixed at its first use.
type metaDoc struct {
	ID          string `bson:"_id"`
	Namespace   string `bson:"ns"`
	Limit       int    `bson:"limit"`
	ToleranceMs int64  `bson:"toleranceMs"`
}

// rowDoc is a slot's row by the shared rules of storekit.SlotRow, with the version that its
// compare-and-set updates match and increment.
type rowDoc struct {
	ID          string `bson:"_id"`
	Namespace   string `bson:"ns"`
	Slot        int    `bson:"slot"`
	Owner       string `bson:"owner"`
	Incarnation string `bson:"incarnation"`
	LastOwner   string `bson:"lastOwner"`
	Fence       int64  `bson:"fence"`
	ExpiresMs   int64  `bson:"expiresMs"`
	FloorMs     int64  `bson:"floorMs"`
	CeilingMs   int64  `bson:"ceilingMs"`
	NextFloorMs int64  `bson:"nextFloorMs"`
	Version     int64  `bson:"v"`
}

func (d rowDoc) row() storekit.SlotRow {
	return storekit.SlotRow{Owner: d.Owner, Incarnation: d.Incarnation, LastOwner: d.LastOwner, Fence: d.Fence,
		ExpiresMs: d.ExpiresMs, FloorMs: d.FloorMs, CeilingMs: d.CeilingMs, NextFloorMs: d.NextFloorMs}
}

func newRowDoc(namespace string, slot int, r storekit.SlotRow, version int64) rowDoc {
	return rowDoc{ID: docID(namespace, strconv.Itoa(slot)), Namespace: namespace, Slot: slot,
		Owner: r.Owner, Incarnation: r.Incarnation, LastOwner: r.LastOwner, Fence: r.Fence,
		ExpiresMs: r.ExpiresMs, FloorMs: r.FloorMs, CeilingMs: r.CeilingMs, NextFloorMs: r.NextFloorMs, Version: version}
}

// nsRead is a read of a namespace: its settings, and the rows of its slots.
type nsRead struct {
	meta *metaDoc
	rows map[int]rowDoc
}

// readDocs reads the documents of namespace whose _id suffixes are given (nil: all)
// and sorts them into settings and rows, refusing documents the store never writes.
func (s *Store) readDocs(ctx context.Context, namespace string, suffixes ...string) (nsRead, error) {
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: namespace + "#"}, {Key: "$lt", Value: namespace + "$"}}},
		{Key: "ns", Value: namespace}}
	if suffixes != nil {
		ids := make(bson.A, len(suffixes))
		for i, sfx := range suffixes {
			ids[i] = docID(namespace, sfx)
		}
		filter = bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "ns", Value: namespace}}
	}
	cur, err := s.slots.Find(ctx, filter)
	if err != nil {
		return nsRead{}, err
	}
	var raws []bson.Raw
	if err := cur.All(ctx, &raws); err != nil {
		return nsRead{}, err
	}
	ns := nsRead{rows: map[int]rowDoc{}}
	for _, raw := range raws {
		id, _ := raw.Lookup("_id").StringValueOK()
		suffix := id[strings.LastIndexByte(id, '#')+1:]
		if suffix == metaSuffix {
			var m metaDoc
			if err := bson.Unmarshal(raw, &m); err != nil || m.Limit < 1 || m.Limit > store.MaxSlots || m.ToleranceMs < 0 {
				return nsRead{}, fmt.Errorf("%w: %s %q: limit %d, tolerance %dms: %v", ErrCorrupt, SlotCollection, id, m.Limit, m.ToleranceMs, err)
			}
			ns.meta = &m
			continue
		}
		var d rowDoc
		err := bson.Unmarshal(raw, &d)
		switch {
		case err == nil && ((d.Fence < 1 && !raisedOnly(d)) || (d.Owner == "") != (d.Incarnation == "") || docID(namespace, strconv.Itoa(d.Slot)) != id):
			err = fmt.Errorf("fence %d, owner %q, incarnation %q, slot %d", d.Fence, d.Owner, d.Incarnation, d.Slot)
		}
		if err != nil {
			return nsRead{}, fmt.Errorf("%w: %s %q: %w", ErrCorrupt, SlotCollection, id, err)
		}
		ns.rows[d.Slot] = d
	}
	return ns, nil
}

// readWithClock reads the store clock and the documents of namespace at once.
func (s *Store) readWithClock(ctx context.Context, clock bool, namespace string, suffixes ...string) (int64, nsRead, error) {
	var (
		wg       sync.WaitGroup
		nowMs    int64
		clockErr error
	)
	if clock {
		wg.Go(func() { nowMs, clockErr = s.now(ctx) })
	}
	ns, err := s.readDocs(ctx, namespace, suffixes...)
	wg.Wait()
	if err == nil {
		err = clockErr
	}
	return nowMs, ns, err
}

// Acquire implements store.SlotLeaseStore. It reads the store clock (hello's
// localTime) and the namespace's documents at once, inserting the settings at the
// namespace's first use, and takes the first free slot with a compare-and-set update
// of its row on the row's version (an insert for a slot never taken); when other
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
	toleranceMs, ttlMs := storekit.MillisUp(req.Tolerance), storekit.MillisUp(req.TTL)
	created := false
	for {
		nowMs, ns, err := s.readWithClock(ctx, true, req.Namespace)
		switch {
		case err != nil:
			return store.Lease{}, err
		case ns.meta == nil && created:
			return store.Lease{}, errors.New("the namespace is missing right after its creation")
		case ns.meta == nil:
			m := metaDoc{ID: docID(req.Namespace, metaSuffix), Namespace: req.Namespace, Limit: req.Limit, ToleranceMs: toleranceMs}
			if _, err := s.slots.InsertOne(ctx, m); err != nil && !mongo.IsDuplicateKeyError(err) {
				return store.Lease{}, fmt.Errorf("creating the namespace: %w", err)
			}
			created = true
			continue
		case ns.meta.Limit != req.Limit || ns.meta.ToleranceMs != toleranceMs:
			return store.Lease{}, storekit.NamespaceConflict(ns.meta.Limit, ns.meta.ToleranceMs, req.Limit, req.Tolerance)
		}
		rows := storekit.SlotRows(ns.rows, rowDoc.row)
		free := storekit.SlotCandidates(rows, ns.meta.Limit, req.OwnerKey, req.Preferred, nowMs, maxCandidates)
		if len(free) == 0 {
			return store.Lease{}, fmt.Errorf("all %d slots are leased: %w", ns.meta.Limit, store.ErrNoFreeSlot)
		}
		for _, slot := range free {
			old, exists := ns.rows[slot]
			next := rows[slot].Take(req.OwnerKey, nowMs, ttlMs, toleranceMs)
			won, err := s.swap(ctx, req.Namespace, slot, exists, old.Version, next)
			if err != nil {
				return store.Lease{}, fmt.Errorf("taking slot %d: %w", slot, err)
			}
			if won {
				return next.Lease(req.Namespace, slot, nowMs), nil
			}
		}
	}
}

// swap writes row r of slot if its document is still at version (an insert when it
// did not exist), and reports whether it was.
func (s *Store) swap(ctx context.Context, namespace string, slot int, exists bool, version int64, r storekit.SlotRow) (bool, error) {
	doc := newRowDoc(namespace, slot, r, version+1)
	if !exists {
		_, err := s.slots.InsertOne(ctx, doc)
		if mongo.IsDuplicateKeyError(err) {
			return false, nil
		}
		return err == nil, err
	}
	res, err := s.slots.ReplaceOne(ctx, bson.D{{Key: "_id", Value: doc.ID}, {Key: "v", Value: version}}, doc)
	if err != nil {
		return false, err
	}
	return res.MatchedCount == 1, nil
}

// Renew implements store.SlotLeaseStore: it reads the store clock, the namespace's
// settings and the lease's row at once, and writes the renewed row with a
// compare-and-set on its version; when another call changed the row in between, it
// reads again.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	return storekit.RenewLease(ctx, s.name, s.change, l, ttl)
}

// Release implements store.SlotLeaseStore: it reads the lease's row and frees it
// with a compare-and-set on its version. It does not read the store clock: a
// release changes no time.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	return storekit.ReleaseLease(ctx, s.name, s.change, l, lastUsedMs)
}

// change is the store's storekit.SlotChange: a compare-and-set on the row document's
// version.
func (s *Store) change(ctx context.Context, op string, l store.Lease, clock bool, f func(nowMs, toleranceMs int64, r storekit.SlotRow) (storekit.SlotRow, error)) error {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	for err == nil {
		var nowMs int64
		var ns nsRead
		nowMs, ns, err = s.readWithClock(ctx, clock, l.Namespace, metaSuffix, strconv.Itoa(l.Slot))
		if err != nil {
			break
		}
		d, ok := ns.rows[l.Slot]
		switch {
		case !ok || ns.meta == nil:
			err = fmt.Errorf("the slot was never leased: %w", store.ErrLeaseLost)
			continue
		case !d.row().Holds(l):
			err = fmt.Errorf("the slot was released or acquired again: %w", store.ErrLeaseLost)
			continue
		}
		var next storekit.SlotRow
		if next, err = f(nowMs, ns.meta.ToleranceMs, d.row()); err != nil {
			break
		}
		var won bool
		if won, err = s.swap(ctx, l.Namespace, l.Slot, true, d.Version, next); won {
			return nil
		}
	}
	return s.failed(fmt.Sprintf("%s slot %d of namespace %q (fence %d) for %q", op, l.Slot, l.Namespace, l.Fence, l.OwnerKey), err)
}
