package sim

import (
	"fmt"

	"github.com/cosid-go/cosid/segment"
)

// checker sees every id that every machine made, and keeps the first broken promise.
type checker struct {
	seen    map[string]*bitset  // segment and periodic values, by store key
	stamps  map[[2]int64]uint64 // (slot, ms) → the machine incarnation that stamped it
	takes   map[int64]take      // slot → its latest acquisition
	failure string
}

// take is an acquisition of a slot: its Floor, by which machine incarnation.
type take struct {
	floor int64
	id    uint64
}

func newChecker() *checker {
	return &checker{seen: map[string]*bitset{}, stamps: map[[2]int64]uint64{}, takes: map[int64]take{}}
}

// snowflakeTake records that machine m acquired slot with floor: from now on no
// earlier owner of the slot may stamp at or above it (L3).
func (c *checker) snowflakeTake(m *machine, slot int, floor int64) {
	c.takes[int64(slot)] = take{floor: floor, id: m.id}
}

func (c *checker) fail(format string, args ...any) {
	if c.failure == "" {
		c.failure = fmt.Sprintf(format, args...)
	}
}

// value records value v of store key by machine m: it must be new.
func (c *checker) value(key string, v int64, m *machine) {
	b := c.seen[key]
	if b == nil {
		b = &bitset{}
		c.seen[key] = b
	}
	if v < 0 || !b.add(uint64(v)) {
		c.fail("duplicate: %s handed out %d of key %q a second time", m, v, key)
	}
}

// bitset is a set of small non-negative integers, such as the values of a key.
type bitset struct{ w []uint64 }

// add adds v and reports whether it was new.
func (b *bitset) add(v uint64) bool {
	i := v / 64
	if i >= uint64(len(b.w)) {
		b.w = append(b.w, make([]uint64, int(i)+1-len(b.w)+len(b.w)/2)...)
	}
	m := uint64(1) << (v % 64)
	if b.w[i]&m != 0 {
		return false
	}
	b.w[i] |= m
	return true
}

// segmentID checks an id of a segment machine: unique for the key, and above the
// machine's last one.
func (c *checker) segmentID(m *machine, key string, v int64) {
	if v <= m.last {
		c.fail("not increasing: %s handed out %d after %d", m, v, m.last)
	}
	m.last = v
	c.value(key, v, m)
}

// periodicID checks an id of a periodic machine: unique for its period's key,
// increasing within the period, and in a period its clock showed between before
// and after the call (periods never go back, so it may be a later one than before's).
func (c *checker) periodicID(m *machine, id segment.GroupedID, before, after string) {
	if id.Period < before || id.Period > after {
		c.fail("wrong period: %s handed out %v while its clock showed periods %s to %s", m, id, before, after)
	}
	if id.Period < m.lastPeriod {
		c.fail("period went back: %s handed out %v after an id of period %s", m, id, m.lastPeriod)
	}
	if id.Period == m.lastPeriod && id.Value <= m.last {
		c.fail("not increasing: %s handed out %v after %s/%d", m, id, m.lastPeriod, m.last)
	}
	m.lastPeriod, m.last = id.Period, id.Value
	c.value(m.key+"/"+id.Period, id.Value, m)
}

// snowflakeID checks an id of a Snowflake machine: increasing, of the slot of its
// lease, stamped within the lease's [Floor, Ceiling], below the Floor of any later
// owner of the slot, and at a (slot, time) no other machine stamped.
func (c *checker) snowflakeID(m *machine, id int64) {
	if id <= m.last {
		c.fail("not increasing: %s handed out %d after %d", m, id, m.last)
	}
	m.last = id
	st := m.layout.Parse(id)
	ms := st.Time.UnixMilli()
	slot, floor, ceiling, ok := m.view.bounds()
	switch {
	case !ok:
		c.fail("no lease: %s handed out %d (%v) without a lease", m, id, st)
	case st.Machine != slot:
		c.fail("wrong machine: %s handed out %d with machine %d, its lease is of slot %d", m, id, st.Machine, slot)
	case ms < floor || ms > ceiling:
		c.fail("outside the lease: %s stamped %d at %d ms, its lease allows [%d, %d]", m, id, ms, floor, ceiling)
	}
	if t, ok := c.takes[int64(st.Machine)]; ok && t.id != m.id && ms >= t.floor {
		c.fail("above the next floor: %s stamped slot %d at %d ms, at or above the Floor %d of incarnation %d, which took the slot after it",
			m, st.Machine, ms, t.floor, t.id)
	}
	k := [2]int64{int64(st.Machine), ms}
	if other, ok := c.stamps[k]; ok && other != m.id {
		c.fail("shared stamp: %s stamped slot %d at %d ms, which machine incarnation %d stamped too", m, st.Machine, ms, other)
	}
	c.stamps[k] = m.id
}
