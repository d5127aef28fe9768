package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Admin = (*Store)(nil)

// indexName names the sorted set of every range key of the store, all scored 0, so that
// ZRANGE BYLEX pages through them in the byte order of their UTF-8 (members compare
// with memcmp), from any key, in O(log n) per page. SCAN cannot: it returns the
// names of a hash table in no order, so one page in byte order would need a pass
// over every key of the server, and streaming n keys n/limit such passes. The name
// has no brace, so that no range key's name can equal it; on a Cluster it lies in a
// hash slot of its own, which no script touches.
func indexName(prefix string) string { return prefix + "keys" }

// keyIndex remembers the keys whose index entry the store wrote, so that Reserve
// adds the entry (ZADD NX, one round trip) only at a key's first use in the process.
type keyIndex struct {
	done sync.Map // key → struct{}
	n    atomic.Int64
}

// maxIndexed bounds the keys a keyIndex remembers: past it, it forgets them all and
// writes their entries again as they come, which ZADD NX makes harmless.
const maxIndexed = 1 << 16

// indexKey adds key to the index unless the store did so before: ahead of the
// write that creates the key, so that the index holds every key that exists (and,
// after a failure between the two, a key that does not, which Keys skips).
func (s *Store) indexKey(ctx context.Context, key string) error {
	if _, ok := s.index.done.Load(key); ok {
		return nil
	}
	if err := s.client.ZAddNX(ctx, indexName(s.prefix), redis.Z{Member: key}).Err(); err != nil {
		return fmt.Errorf("adding the key to the index %q: %w", indexName(s.prefix), err)
	}
	if s.index.n.Add(1) > maxIndexed {
		s.index.done.Clear()
		s.index.n.Store(0)
	}
	s.index.done.Store(key, struct{}{})
	return nil
}

// Keys implements store.Admin: a ZRANGE BYLEX of the index from after, then the
// keys' hashes in one pipeline. Index entries whose key does not exist are skipped,
// and the page filled from further on.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("%s: keys: %w", s.name, err)
	}
	op := fmt.Sprintf("keys under %q after %q", prefix, after)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return nil, s.leaseFail(op, err)
	}
	defer cancel()
	lo, hi, bounded := storekit.PrefixBounds(prefix)
	start, stop := "("+after, "+"
	if after < lo {
		start = "[" + lo
	}
	if bounded {
		stop = "(" + hi
	}
	var keys []store.KeyInfo
	for len(keys) < limit {
		want := limit - len(keys)
		names, err := s.client.ZRangeArgs(ctx, redis.ZRangeArgs{Key: indexName(s.prefix), Start: start, Stop: stop, ByLex: true, Count: int64(want)}).Result()
		if err != nil {
			return nil, s.leaseFail(op, err)
		}
		if len(names) == 0 {
			break
		}
		page, err := s.readKeys(ctx, names)
		if err != nil {
			return nil, s.leaseFail(op, err)
		}
		keys = append(keys, page...)
		if len(names) < want {
			break
		}
		start = "(" + names[len(names)-1]
	}
	return keys, nil
}

// readKeys reads the hashes of the keys in one pipeline, which a Cluster client
// splits by node, and leaves out the keys that do not exist.
func (s *Store) readKeys(ctx context.Context, names []string) ([]store.KeyInfo, error) {
	cmds := make([]*redis.SliceCmd, len(names))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			cmds[i] = p.HMGet(ctx, rangeKey(s.prefix, k), "next", "sealed")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	keys := make([]store.KeyInfo, 0, len(names))
	for i, cmd := range cmds {
		v := cmd.Val()
		if v[0] == nil && v[1] == nil {
			continue
		}
		ki := store.KeyInfo{Key: names[i], Sealed: v[1] != nil}
		if v[0] != nil {
			text, _ := v[0].(string)
			if ki.Next, err = strconv.ParseInt(text, 10, 64); err != nil {
				return nil, fmt.Errorf("key %q holds next value %q: %w", names[i], text, err)
			}
		}
		keys = append(keys, ki)
	}
	return keys, nil
}

// RaiseTo implements store.Admin: the index entry, then one script that never lowers
// the key and keeps its seal; it compares the values as decimal text.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("%s: raise: %w", s.name, err)
	}
	op := fmt.Sprintf("raise to %d", next)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.Raised{}, s.fail(op, key, err)
	}
	defer cancel()
	if err := s.indexKey(ctx, key); err != nil {
		return store.Raised{}, s.fail(op, key, err)
	}
	reply, err := s.run(ctx, raiseScript, []string{rangeKey(s.prefix, key)}, strconv.FormatInt(next, 10)).StringSlice()
	if err != nil {
		return store.Raised{}, s.fail(op, key, err)
	}
	r, err := parseRaise(reply, key)
	if err != nil {
		return store.Raised{}, s.fail(op, key, err)
	}
	return r, nil
}

// parseRaise reads the reply of raiseScript.
func parseRaise(reply []string, key string) (store.Raised, error) {
	if len(reply) == 2 && reply[0] == "created" {
		after, err := strconv.ParseInt(reply[1], 10, 64)
		return store.Raised{Key: key, After: after, Created: true}, err
	}
	if len(reply) != 4 || (reply[0] != "raised" && reply[0] != "kept") {
		return store.Raised{}, fmt.Errorf("the raise script answered %q, want created, raised or kept with their values", reply)
	}
	before, err1 := strconv.ParseInt(reply[1], 10, 64)
	after, err2 := strconv.ParseInt(reply[2], 10, 64)
	if err := errors.Join(err1, err2); err != nil || after < before {
		return store.Raised{}, fmt.Errorf("the raise script answered %q, want two integers, the second not below the first (%w)", reply, err)
	}
	return store.Raised{Key: key, Before: before, After: after, Sealed: reply[3] == "1"}, nil
}

// Delete implements store.Admin: it deletes the key's hash, then its index entry, so
// that a failure in between leaves an entry Keys skips, never a key it misses.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: delete: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return s.fail("delete", key, err)
	}
	defer cancel()
	if err := s.client.Del(ctx, rangeKey(s.prefix, key)).Err(); err != nil {
		return s.fail("delete", key, err)
	}
	s.index.done.Delete(key)
	if err := s.client.ZRem(ctx, indexName(s.prefix), key).Err(); err != nil {
		return s.fail("delete the index entry of", key, err)
	}
	return nil
}

// slotsOf reads a namespace's meta and slot rows at one instant of the store clock;
// found is false when the namespace does not exist.
func (s *Store) slotsOf(ctx context.Context, namespace string) (ns store.NamespaceInfo, rows map[int]*storekit.SlotRow, found bool, err error) {
	k := namespaceKeys(s.prefix, namespace)
	reply, err := s.run(ctx, readSlotsScript, []string{k.meta, k.slots}, s.offset()).Slice()
	if err != nil || len(reply) == 0 {
		return ns, nil, false, err
	}
	if len(reply) != 4 {
		return ns, nil, false, fmt.Errorf("the slots script answered %d values, want 4", len(reply))
	}
	var n [3]int64
	for i := range n {
		text, _ := reply[i].(string)
		if n[i], err = strconv.ParseInt(text, 10, 64); err != nil {
			return ns, nil, false, fmt.Errorf("the slots script answered %v as value %d: %w", reply[i], i+1, err)
		}
	}
	fields, _ := reply[3].([]any)
	rows = make(map[int]*storekit.SlotRow)
	for i := 0; i+1 < len(fields); i += 2 {
		name, _ := fields[i].(string)
		value, _ := fields[i+1].(string)
		if err := setField(rows, name, value); err != nil {
			return ns, nil, false, fmt.Errorf("namespace %q: %w", namespace, err)
		}
	}
	ns = storekit.NewNamespaceInfo(namespace, int(n[0]), n[1], n[2])
	return ns, rows, true, nil
}

// setField sets the field "<slot>.<name>" of the slots hash in its row.
func setField(rows map[int]*storekit.SlotRow, field, value string) error {
	slotText, name, ok := strings.Cut(field, ".")
	slot, err := strconv.Atoi(slotText)
	if !ok || err != nil || slot < 0 || slot >= store.MaxSlots {
		return fmt.Errorf("the slots hash holds field %q, want <slot>.<name>", field)
	}
	r := rows[slot]
	if r == nil {
		r = new(storekit.SlotRow)
		rows[slot] = r
	}
	var num *int64
	switch name {
	case "owner":
		r.Owner = value
	case "incarnation":
		r.Incarnation = value
	case "last":
		r.LastOwner = value
	case "fence":
		num = &r.Fence
	case "expires":
		num = &r.ExpiresMs
	case "floor":
		num = &r.FloorMs
	case "ceiling":
		num = &r.CeilingMs
	case "nextFloor":
		num = &r.NextFloorMs
	}
	if num != nil && value != "" {
		if *num, err = strconv.ParseInt(value, 10, 64); err != nil {
			return fmt.Errorf("field %q holds %q, want an integer", field, value)
		}
	}
	return nil
}

// Slots implements store.Admin: one read-only script.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("%s: slots: %w", s.name, err)
	}
	op := fmt.Sprintf("slots of namespace %q", namespace)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.NamespaceInfo{}, s.leaseFail(op, err)
	}
	defer cancel()
	info, rows, found, err := s.slotsOf(ctx, namespace)
	switch {
	case err != nil:
		return store.NamespaceInfo{}, s.leaseFail(op, err)
	case !found:
		return store.NamespaceInfo{}, s.leaseFail(op, store.ErrNotFound)
	}
	info.Slots = storekit.ListedSlots(rows, storekit.DerefSlotRow)
	return info, nil
}

// LeaseOf implements store.Admin: the slots script, and of the rows ownerKey owns,
// the lowest.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("%s: lease of: %w", s.name, err)
	}
	op := fmt.Sprintf("lease of %q in namespace %q", ownerKey, namespace)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	defer cancel()
	info, rows, _, err := s.slotsOf(ctx, namespace)
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	slot, ok := storekit.OwnedSlot(rows, storekit.DerefSlotRow, ownerKey)
	if !ok {
		return store.Lease{}, s.leaseFail(op, store.ErrNotFound)
	}
	return rows[slot].Lease(namespace, slot, info.StoreNow.UnixMilli()), nil
}

// RaiseFloor implements store.Admin: one script that creates the namespace when
// asked to and raises the slot's next floor unless the slot has an owner. Floors
// stay below 2^53, as the lease scripts' numbers must.
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("%s: raise floor: %w", s.name, err)
	}
	if req.FloorMs >= maxExact {
		return store.SlotInfo{}, fmt.Errorf("%s: raise floor: %w: FloorMs %d for slot %d of namespace %q, want below 2^53, which the store's scripts count exactly",
			s.name, store.ErrInvalidArgument, req.FloorMs, req.Slot, req.Namespace)
	}
	op := fmt.Sprintf("raise the floor of slot %d of namespace %q to %d", req.Slot, req.Namespace, req.FloorMs)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.SlotInfo{}, s.leaseFail(op, err)
	}
	defer cancel()
	k := namespaceKeys(s.prefix, req.Namespace)
	reply, err := s.run(ctx, raiseFloorScript, []string{k.meta, k.slots},
		req.Limit, storekit.MillisUp(req.Tolerance), req.Slot, strconv.FormatInt(req.FloorMs, 10)).StringSlice()
	if err != nil {
		return store.SlotInfo{}, s.leaseFail(op, err)
	}
	info, err := parseFloor(reply, req)
	if err != nil {
		return store.SlotInfo{}, s.leaseFail(op, err)
	}
	return info, nil
}

// parseFloor reads the reply of raiseFloorScript.
func parseFloor(reply []string, req store.FloorRequest) (store.SlotInfo, error) {
	status := ""
	if len(reply) > 0 {
		status = reply[0]
	}
	switch {
	case status == "ok" && len(reply) == 9:
		rows := map[int]*storekit.SlotRow{}
		for i, name := range []string{"owner", "incarnation", "last", "fence", "expires", "floor", "ceiling", "nextFloor"} {
			if err := setField(rows, strconv.Itoa(req.Slot)+"."+name, reply[i+1]); err != nil {
				return store.SlotInfo{}, err
			}
		}
		return rows[req.Slot].Info(req.Slot), nil
	case status == "missing":
		return store.SlotInfo{}, store.ErrNotFound
	case status == "conflict" && len(reply) == 3:
		return store.SlotInfo{}, fmt.Errorf("the namespace has limit %s and tolerance %s ms, asked for limit %d and tolerance %v: %w",
			reply[1], reply[2], req.Limit, req.Tolerance, store.ErrNamespaceConflict)
	case status == "outside" && len(reply) == 2:
		return store.SlotInfo{}, fmt.Errorf("%w: slot %d lies outside the namespace's limit %s", store.ErrInvalidArgument, req.Slot, reply[1])
	case status == "held" && len(reply) == 2:
		return store.SlotInfo{}, fmt.Errorf("the slot is %q's: %w", reply[1], store.ErrSlotHeld)
	}
	return store.SlotInfo{}, fmt.Errorf("the raise floor script answered %q, want ok, missing, conflict, outside or held with their values", reply)
}
