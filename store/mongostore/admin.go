package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Admin = (*Store)(nil)

// Keys implements store.Admin: one find per page, a range of _id from the larger of
// after and the prefix to the prefix's upper bound, sorted on _id and limited to the
// page, so that it walks the _id index and a listing of millions of keys reads each
// key once. MongoDB compares strings without a collation byte by byte, which is the
// byte order of their UTF-8.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("%s: keys: %w", s.name, err)
	}
	keys, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) ([]store.KeyInfo, error) {
		return s.keys(ctx, prefix, after, limit)
	})
	if err != nil {
		return nil, s.failed(fmt.Sprintf("keys under %q after %q", prefix, after), err)
	}
	return keys, nil
}

func (s *Store) keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	lo, hi, bounded := storekit.PrefixBounds(prefix)
	id := bson.D{{Key: "$gte", Value: lo}}
	if after >= lo {
		id = bson.D{{Key: "$gt", Value: after}}
	}
	if bounded {
		id = append(id, bson.E{Key: "$lt", Value: hi})
	}
	// A negative limit asks for a single batch, which ends the cursor with the page
	// (no getMore, no killCursors), and the batch size makes the batch the whole page
	// rather than the server's default 101 documents. A page of MaxPage keys of
	// MaxKeyLen bytes stays far below the 16 MiB that would cut a batch short.
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(-int64(limit)).SetBatchSize(int32(limit))
	cur, err := s.ranges.Find(ctx, bson.D{{Key: "_id", Value: id}}, opts)
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)
	keys := make([]store.KeyInfo, 0, min(limit, 128))
	for cur.Next(ctx) {
		var doc rangeDoc
		if err := cur.Decode(&doc); err != nil || doc.Next < 0 {
			return nil, corruptRange(cur.Current.Lookup("_id").String(), doc.Next, err)
		}
		keys = append(keys, store.KeyInfo{Key: doc.Key, Next: doc.Next, Sealed: doc.Sealed})
	}
	return keys, cur.Err()
}

// RaiseTo implements store.Admin: one findOneAndUpdate with upsert, $max of next,
// returning the document before the update. MongoDB applies it atomically, so a
// raise never lowers a key that reservations move at the same time, and the key's
// value after it is the larger of the two.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("%s: raise: %w", s.name, err)
	}
	r, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.Raised, error) {
		return s.raise(ctx, key, next)
	})
	if err != nil {
		return store.Raised{}, s.failed(fmt.Sprintf("raise %q to %d", key, next), err)
	}
	return r, nil
}

var raiseOptions = options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.Before)

func (s *Store) raise(ctx context.Context, key string, next int64) (store.Raised, error) {
	update := bson.D{{Key: "$max", Value: bson.D{{Key: "next", Value: next}}}}
	for range 2 { // concurrent upserts of one new key: one inserts, the other updates on a second try
		raw, err := s.ranges.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: key}}, update, raiseOptions).Raw()
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			return store.Raised{Key: key, After: next, Created: true}, nil
		case mongo.IsDuplicateKeyError(err):
			continue
		case err != nil:
			return store.Raised{}, err
		}
		var before rangeDoc
		if err := bson.Unmarshal(raw, &before); err != nil || before.Next < 0 {
			return store.Raised{}, corruptRange(strconv.Quote(key), before.Next, err)
		}
		return store.Raised{Key: key, Before: before.Next, After: max(before.Next, next), Sealed: before.Sealed}, nil
	}
	return store.Raised{}, errors.New("the key was inserted under both attempts")
}

// corruptRange is the error of a range document that failed to decode (err), or
// whose next value is negative.
func corruptRange(id string, next int64, err error) error {
	if err == nil {
		err = fmt.Errorf("next %d", next)
	}
	return fmt.Errorf("%w: %s %s: %w", ErrCorrupt, RangeCollection, id, err)
}

// Delete implements store.Admin: one deleteOne.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: delete: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err == nil {
		_, err = s.ranges.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
	}
	if err != nil {
		return s.failed(fmt.Sprintf("delete %q", key), err)
	}
	return nil
}

// Slots implements store.Admin: hello and a find of the namespace's documents at
// once, as an Acquire reads them.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("%s: slots: %w", s.name, err)
	}
	var info store.NamespaceInfo
	err := s.readNamespace(ctx, namespace, func(nowMs int64, ns nsRead) error {
		info = storekit.NewNamespaceInfo(namespace, ns.meta.Limit, ns.meta.ToleranceMs, nowMs)
		info.Slots = storekit.ListedSlots(ns.rows, rowDoc.row)
		return nil
	})
	if err != nil {
		return store.NamespaceInfo{}, s.failed(fmt.Sprintf("slots of namespace %q", namespace), err)
	}
	return info, nil
}

// LeaseOf implements store.Admin: hello and a find of the namespace's documents at
// once, as an Acquire reads them; the lease is that of the lowest slot whose row
// names ownerKey as its owner.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("%s: lease of: %w", s.name, err)
	}
	var l store.Lease
	err := s.readNamespace(ctx, namespace, func(nowMs int64, ns nsRead) error {
		slot, ok := storekit.OwnedSlot(ns.rows, rowDoc.row, ownerKey)
		if !ok {
			return store.ErrNotFound
		}
		l = ns.rows[slot].row().Lease(namespace, slot, nowMs)
		return nil
	})
	if err != nil {
		return store.Lease{}, s.failed(fmt.Sprintf("lease of %q in namespace %q", ownerKey, namespace), err)
	}
	return l, nil
}

// readNamespace reads the store clock and every document of namespace, and passes
// them to f, or fails with store.ErrNotFound when the namespace has no settings.
func (s *Store) readNamespace(ctx context.Context, namespace string, f func(int64, nsRead) error) error {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	nowMs, ns, err := s.readWithClock(ctx, true, namespace)
	switch {
	case err != nil:
		return err
	case ns.meta == nil:
		return fmt.Errorf("no such namespace: %w", store.ErrNotFound)
	}
	return f(nowMs, ns)
}

// RaiseFloor implements store.Admin: it reads the namespace's settings and the
// slot's row, inserting the settings when the namespace is new and req.Limit allows,
// and writes the raised row with a compare-and-set on its version (an insert for a
// slot never taken, a row of fence 0, see raisedOnly), reading again when another
// call changed it in between.
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
	toleranceMs := storekit.MillisUp(req.Tolerance)
	created := false
	for {
		ns, err := s.readDocs(ctx, req.Namespace, metaSuffix, strconv.Itoa(req.Slot))
		switch {
		case err != nil:
			return store.SlotInfo{}, err
		case ns.meta == nil && req.Limit == 0:
			return store.SlotInfo{}, fmt.Errorf("no such namespace, and no limit to create it with: %w", store.ErrNotFound)
		case ns.meta == nil && created:
			return store.SlotInfo{}, errors.New("the namespace is missing right after its creation")
		case ns.meta == nil:
			m := metaDoc{ID: docID(req.Namespace, metaSuffix), Namespace: req.Namespace, Limit: req.Limit, ToleranceMs: toleranceMs}
			if _, err := s.slots.InsertOne(ctx, m); err != nil && !mongo.IsDuplicateKeyError(err) {
				return store.SlotInfo{}, fmt.Errorf("creating the namespace: %w", err)
			}
			created = true
			continue
		case req.Limit != 0 && (ns.meta.Limit != req.Limit || ns.meta.ToleranceMs != toleranceMs):
			return store.SlotInfo{}, storekit.NamespaceConflict(ns.meta.Limit, ns.meta.ToleranceMs, req.Limit, req.Tolerance)
		case req.Slot >= ns.meta.Limit:
			return store.SlotInfo{}, fmt.Errorf("%w: slot %d lies outside the namespace's limit %d", store.ErrInvalidArgument, req.Slot, ns.meta.Limit)
		}
		d, exists := ns.rows[req.Slot]
		r := d.row()
		if r.Owner != "" {
			return store.SlotInfo{}, fmt.Errorf("the slot is %q's: %w", r.Owner, store.ErrSlotHeld)
		}
		next := r
		next.NextFloorMs = max(r.NextFloorMs, req.FloorMs)
		if next == r {
			return r.Info(req.Slot), nil
		}
		won, err := s.swap(ctx, req.Namespace, req.Slot, exists, d.Version, next)
		switch {
		case err != nil:
			return store.SlotInfo{}, err
		case won:
			return next.Info(req.Slot), nil
		}
	}
}

// raisedOnly reports whether d is the row RaiseFloor writes for a slot never taken:
// fence 0, no lease, a next floor. Its first owner takes fence 1, as from no row.
func raisedOnly(d rowDoc) bool {
	return d.Fence == 0 && d.NextFloorMs > 0 && d.row() == storekit.SlotRow{NextFloorMs: d.NextFloorMs}
}
