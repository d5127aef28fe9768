package leasemodel

import (
	"fmt"
	"slices"
	"strings"
)

// step is one move of the world: what happened, and to whom.
type step struct {
	kind  stepKind
	owner int8
	slot  int8
	lost  bool // the store's answer never reached the owner, though its write landed
}

type stepKind uint8

const (
	tick      stepKind = iota + 1 // store time (and every owner clock) moves 1ms
	acquire                       // the owner takes a free slot
	halt                          // the owner's clock passed its Ceiling: it stops for good
	renew                         // the owner renews its lease
	release                       // the owner closes its generator and releases the slot
	crash                         // the owner's process dies: it forgets its lease
	clockUp                       // the owner's clock steps 1ms ahead
	clockBack                     // the owner's clock steps 1ms back
	foreign                       // a caller that is no owner releases the slot's lease
)

func (s step) String() string {
	names := [...]string{tick: "tick", acquire: "acquire", halt: "halt", renew: "renew",
		release: "release", crash: "crash", clockUp: "clock+1", clockBack: "clock-1"}
	switch s.kind {
	case tick:
		return "tick"
	case foreign:
		return fmt.Sprintf("a non-owner releases slot %d", s.slot)
	}
	out := fmt.Sprintf("%s %s", ownerName(s.owner), names[s.kind])
	if s.kind == acquire {
		out += fmt.Sprintf(" slot %d", s.slot)
	}
	if s.lost {
		out += " (answer lost)"
	}
	return out
}

// Violation is a state that breaks an invariant, with the steps from the start.
type Violation struct {
	Invariant string   // L1, L2, L3 or "unique stamp"
	Detail    string   // names acquisitions by their fences
	Trace     []string // the owners by the names they had at the start
}

func (v *Violation) Error() string {
	return fmt.Sprintf("leasemodel: %s broken: %s\nsteps:\n  %s", v.Invariant, v.Detail, strings.Join(v.Trace, "\n  "))
}

// Result is what Explore found.
type Result struct {
	States    int // distinct states reached
	Steps     int // transitions taken, including those into known states
	Violation *Violation
}

type node struct {
	parent int32
	via    step            // in the parent's names of owners
	perm   [MaxOwners]int8 // the renaming from the parent's names to this state's
}

// explorer is one exhaustive search.
type explorer struct {
	b       Bounds
	take    Take
	foreign Foreign // nil: no caller but the owners
	seen    map[State]int32
	nodes   []node
	queue   []State
	steps   int
	max     int
	// checkFloor checks L3 at each acquisition; without it only a shared stamp
	// shows a Floor too low.
	checkFloor bool
}

// Explore visits every state reachable within b, breadth first, with take as the
// acquisition rule, and stops at the first violation (the shortest, by steps). It
// fails when it reaches more than maxStates states (0: no limit).
func Explore(b Bounds, take Take, maxStates int) (Result, error) {
	return explore(b, take, nil, maxStates, true)
}

// ExploreForeign is Explore with a caller that is no owner and, at any step,
// releases any slot that has an owner by the rule foreign.
func ExploreForeign(b Bounds, take Take, foreign Foreign, maxStates int) (Result, error) {
	return explore(b, take, foreign, maxStates, true)
}

// explore is Explore, with the check of L3 at each acquisition on or off: off, only
// the stamps show a broken Floor.
func explore(b Bounds, take Take, foreign Foreign, maxStates int, checkFloor bool) (Result, error) {
	if err := b.check(); err != nil {
		return Result{}, err
	}
	e := &explorer{b: b, take: take, foreign: foreign, seen: map[State]int32{}, max: maxStates, checkFloor: checkFloor}
	var init State
	for i := range init.owners {
		init.owners[i] = idle(0)
	}
	for s := range init.rows {
		init.rows[s] = row{owner: -1, lastOwner: -1}
		for f := range init.stamps[s] {
			init.stamps[s][f] = span{lo: -1, hi: -1}
		}
	}
	e.add(init, -1, step{}, perms[MaxOwners][0])
	for head := 0; head < len(e.queue); head++ {
		if e.max > 0 && len(e.seen) > e.max {
			return Result{States: len(e.seen), Steps: e.steps}, fmt.Errorf("leasemodel: more than %d states within %+v", e.max, b)
		}
		st := e.queue[head]
		var v *Violation
		e.successors(st, func(next State, via step, broke *Violation) bool {
			e.steps++
			if broke != nil {
				broke.Trace = e.trace(int32(head), via)
				v = broke
				return false
			}
			next, p := next.canonical(b.Owners)
			if _, ok := e.seen[next]; !ok {
				e.add(next, int32(head), via, p)
			}
			return true
		})
		if v != nil {
			return Result{States: len(e.seen), Steps: e.steps, Violation: v}, nil
		}
	}
	return Result{States: len(e.seen), Steps: e.steps}, nil
}

func (b Bounds) check() error {
	switch {
	case b.Owners < 1 || b.Owners > MaxOwners:
		return fmt.Errorf("leasemodel: Owners %d, want 1–%d", b.Owners, MaxOwners)
	case b.Slots < 1 || b.Slots > MaxSlots:
		return fmt.Errorf("leasemodel: Slots %d, want 1–%d", b.Slots, MaxSlots)
	case b.TTL < 1 || b.Tolerance < 0 || b.Skew < 0 || b.Horizon < 1:
		return fmt.Errorf("leasemodel: TTL %d, Tolerance %d, Skew %d, Horizon %d: want TTL ≥ 1, Horizon ≥ 1, the rest ≥ 0",
			b.TTL, b.Tolerance, b.Skew, b.Horizon)
	case b.Takes < 1 || b.Takes > maxFences:
		return fmt.Errorf("leasemodel: Takes %d, want 1–%d", b.Takes, maxFences)
	case b.Horizon+b.TTL+b.Tolerance+b.Skew >= maxTime:
		return fmt.Errorf("leasemodel: Horizon+TTL+Tolerance+Skew = %d, want below %d", b.Horizon+b.TTL+b.Tolerance+b.Skew, maxTime)
	}
	return nil
}

func (e *explorer) add(s State, parent int32, via step, p [MaxOwners]int8) {
	e.seen[s] = int32(len(e.nodes))
	e.nodes = append(e.nodes, node{parent: parent, via: via, perm: p})
	e.queue = append(e.queue, s)
}

// trace returns the steps that lead to the state at index i, and then last, with
// the owners by the names they had at the start.
func (e *explorer) trace(i int32, last step) []string {
	var path []node
	for ; i > 0; i = e.nodes[i].parent {
		path = append(path, e.nodes[i])
	}
	slices.Reverse(path)
	path = append(path, node{via: last})
	var out []string
	orig := perms[MaxOwners][0] // orig[name now] = name at the start
	for _, n := range path {
		via := n.via
		if via.kind != tick && via.kind != foreign {
			via.owner = orig[via.owner]
		}
		out = append(out, via.String())
		var next [MaxOwners]int8
		for j, to := range n.perm {
			next[to] = orig[j]
		}
		orig = next
	}
	return out
}
