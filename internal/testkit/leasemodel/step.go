package leasemodel

import "fmt"

// successors calls yield with every state one step from s, or with the violation a
// step makes; yield returns false to stop.
//
// After every step each owner that holds a lease stamps an id at its clock's time
// if its generator would: owners stamp at every chance they have, the worst case
// for uniqueness, since a release reports the last stamp and no fewer stamps can
// lower a later Floor.
func (e *explorer) successors(s State, yield0 func(State, step, *Violation) bool) {
	b := e.b
	yield := func(n State, via step, v *Violation) bool {
		if v == nil {
			n, v = e.stampAll(n)
		}
		return yield0(n, via, v)
	}
	if int64(s.now) < b.Horizon {
		n := s
		n.now++
		if !yield(n, step{kind: tick}, e.checkL1(n)) {
			return
		}
	}
	if e.foreign != nil {
		for slot := int8(0); slot < int8(b.Slots); slot++ {
			if s.rows[slot].owner < 0 {
				continue
			}
			n := s
			n.rows[slot] = fromSlotrow(e.foreign(s.rows[slot].toSlotrow(slot), int64(s.now)))
			if !yield(n, step{kind: foreign, slot: slot}, nil) {
				return
			}
		}
	}
	for i := int8(0); i < int8(b.Owners); i++ {
		o := s.owners[i]
		if !o.holds {
			for slot := int8(0); slot < int8(b.Slots); slot++ {
				for _, lost := range [...]bool{false, true} {
					n, v := e.acquire(s, i, slot, lost)
					if v == nil && n == s {
						break // the slot is not free
					}
					if !yield(n, step{kind: acquire, owner: i, slot: slot, lost: lost}, v) {
						return
					}
				}
			}
		} else {
			if t := int64(s.now) + int64(o.offset); t > int64(o.ceiling) {
				n := s
				n.owners[i] = idle(o.offset)
				if !yield(n, step{kind: halt, owner: i}, nil) {
					return
				}
			}
			for _, lost := range [...]bool{false, true} {
				n, v := e.renew(s, i, lost)
				if !yield(n, step{kind: renew, owner: i, lost: lost}, v) {
					return
				}
			}
			n, v := e.release(s, i)
			if !yield(n, step{kind: release, owner: i}, v) {
				return
			}
			n = s
			n.owners[i] = idle(o.offset)
			if !yield(n, step{kind: crash, owner: i}, nil) {
				return
			}
		}
		if int64(o.offset) < b.Skew {
			n := s
			n.owners[i].offset++
			if !yield(n, step{kind: clockUp, owner: i}, nil) {
				return
			}
		}
		if int64(o.offset) > -b.Skew {
			n := s
			n.owners[i].offset--
			if !yield(n, step{kind: clockBack, owner: i}, nil) {
				return
			}
		}
	}
}

func idle(offset int8) owner { return owner{slot: -1, offset: offset} }

// acquire is owner i taking slot by the explored Take rule; s itself when the slot
// is not free.
func (e *explorer) acquire(s State, i, slot int8, lost bool) (State, *Violation) {
	r := s.rows[slot].toSlotrow(slot)
	now := int64(s.now)
	if !r.Free(now) {
		return s, nil
	}
	taken := e.take(r, ownerName(i), now, e.b.TTL, e.b.Tolerance)
	if taken.Fence > int64(e.b.Takes) {
		return s, nil // beyond the bounds
	}
	taken.Incarnation = incarnation(slot, int8(taken.Fence))
	n := s
	n.rows[slot] = fromSlotrow(taken)
	if taken.Fence <= int64(s.maxFence[slot]) {
		return n, &Violation{Invariant: "L2", Detail: fmt.Sprintf("slot %d taken with fence %d, not above its earlier fence %d", slot, taken.Fence, s.maxFence[slot])}
	}
	n.maxFence[slot] = int8(taken.Fence)
	n.stamps[slot][taken.Fence-1] = span{lo: int8(taken.FloorMs), hi: -1}
	for f, sp := range s.stamps[slot] {
		if e.checkFloor && sp.hi >= 0 && int64(sp.hi) >= taken.FloorMs {
			return n, &Violation{Invariant: "L3", Detail: fmt.Sprintf("slot %d's new Floor %d is not above time %d, stamped by fence %d", slot, taken.FloorMs, sp.hi, f+1)}
		}
	}
	for _, o := range s.owners {
		if e.checkFloor && o.holds && o.slot == slot && int64(o.ceiling) >= taken.FloorMs {
			return n, &Violation{Invariant: "L3", Detail: fmt.Sprintf("slot %d's new Floor %d is not above the Ceiling %d that fence %d may still stamp up to",
				slot, taken.FloorMs, o.ceiling, o.fence)}
		}
	}
	if !lost {
		o := &n.owners[i]
		o.holds, o.slot, o.fence = true, slot, int8(taken.Fence)
		o.floor, o.ceiling, o.expires = int8(taken.FloorMs), int8(taken.CeilingMs), int8(taken.ExpiresMs)
	}
	return n, e.checkL1(n)
}

// stampAll lets every owner that holds a lease stamp.
func (e *explorer) stampAll(s State) (State, *Violation) {
	for i := int8(0); i < int8(e.b.Owners); i++ {
		if s.owners[i].holds {
			n, v, ok := e.stamp(s, i)
			if v != nil {
				return n, v
			}
			if ok {
				s = n
			}
		}
	}
	return s, nil
}

// stamp is owner i making an id at its clock's time, as a Snowflake generator does:
// not below its Floor or its last stamp, not above the Ceiling it knows.
func (e *explorer) stamp(s State, i int8) (State, *Violation, bool) {
	o := s.owners[i]
	t := int64(s.now) + int64(o.offset)
	mine := s.stamps[o.slot][o.fence-1]
	if t < int64(o.floor) || t > int64(o.ceiling) || t < int64(mine.hi) || t < 0 {
		return s, nil, false
	}
	n := s
	mine.hi = int8(t)
	n.stamps[o.slot][o.fence-1] = mine
	for f, sp := range s.stamps[o.slot] {
		if int8(f+1) != o.fence && sp.hi >= 0 && int64(sp.lo) <= t && t <= int64(sp.hi) {
			return n, &Violation{Invariant: "unique stamp", Detail: fmt.Sprintf("fence %d stamps time %d on slot %d, within the times %d–%d that fence %d stamped",
				o.fence, t, o.slot, sp.lo, sp.hi, f+1)}, true
		}
	}
	return n, nil, true
}

// renew is owner i renewing its lease: the store extends it by storekit.SlotRow's rule, or
// answers ErrLeaseLost, on which the generator stops.
func (e *explorer) renew(s State, i int8, lost bool) (State, *Violation) {
	o := s.owners[i]
	r := s.rows[o.slot].toSlotrow(o.slot)
	n := s
	if !o.holdsRow(i, r) {
		n.owners[i] = idle(o.offset)
		return n, nil
	}
	if o.fence < s.maxFence[o.slot] {
		return n, &Violation{Invariant: "L2", Detail: fmt.Sprintf("%s renewed slot %d with fence %d after fence %d took it", ownerName(i), o.slot, o.fence, s.maxFence[o.slot])}
	}
	renewed := r.Renew(int64(s.now), e.b.TTL, e.b.Tolerance)
	n.rows[o.slot] = fromSlotrow(renewed)
	if !lost {
		no := &n.owners[i]
		no.ceiling = max(no.ceiling, int8(renewed.CeilingMs))
		no.expires = int8(renewed.ExpiresMs)
	}
	return n, e.checkL1(n)
}

// release is owner i closing its generator: it stops stamping and releases the
// slot with its last stamp (Floor-1 when it stamped none).
func (e *explorer) release(s State, i int8) (State, *Violation) {
	o := s.owners[i]
	r := s.rows[o.slot].toSlotrow(o.slot)
	n := s
	n.owners[i] = idle(o.offset)
	if !o.holdsRow(i, r) {
		return n, nil
	}
	if o.fence < s.maxFence[o.slot] {
		return n, &Violation{Invariant: "L2", Detail: fmt.Sprintf("%s released slot %d with fence %d after fence %d took it", ownerName(i), o.slot, o.fence, s.maxFence[o.slot])}
	}
	last := int64(s.stamps[o.slot][o.fence-1].hi)
	if last < 0 {
		last = int64(o.floor) - 1
	}
	released, err := r.Release(last)
	if err != nil {
		return n, &Violation{Invariant: "L3", Detail: fmt.Sprintf("%s's release of slot %d was refused: %v", ownerName(i), o.slot, err)}
	}
	n.rows[o.slot] = fromSlotrow(released)
	return n, nil
}

// checkL1 reports two owners that both hold a lease on one slot unexpired, by the
// store clock and the expiry each was last told. With a non-owner's releases it
// checks nothing: such a release takes the slot from under a running owner, which
// is not told, so L1 cannot hold; L2, L3 and unique stamps still must.
func (e *explorer) checkL1(s State) *Violation {
	if e.foreign != nil {
		return nil
	}
	for slot := int8(0); slot < int8(e.b.Slots); slot++ {
		holder := int8(-1)
		for i := int8(0); i < int8(e.b.Owners); i++ {
			o := s.owners[i]
			if !o.holds || o.slot != slot || o.expires <= s.now {
				continue
			}
			if holder >= 0 {
				return &Violation{Invariant: "L1", Detail: fmt.Sprintf("the owners of fences %d and %d both hold slot %d unexpired at store time %d",
					s.owners[holder].fence, o.fence, slot, s.now)}
			}
			holder = i
		}
	}
	return nil
}
