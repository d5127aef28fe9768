package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cosid-go/cosid/store"
)

// CosId 4.x's machine API (/machines/{namespace}): machine ids as slot leases,
// and what a server remembers of the 4.x instances it leased them to.

// owner4x is the owner key of the 4.x instance instance.
func owner4x(instance string) string { return OwnerKeyPrefix4x + instance }

// MaxMachines4x bounds what a server remembers of 4.x instances (machines4x) and of
// the 4.x segment keys it created (created4x). Past it the oldest entry is forgotten:
// the store still holds it, and a forgotten entry costs one store call.
const MaxMachines4x = 10000

// machines4x is what a server remembers of the 4.x instances it leased slots to.
// A store that looks up an owner's lease (a store.Admin) answers first, so that a
// guard or revert may reach any server; what the server remembers still tells a
// guard of an instance whose slot another took (M-03) from one that never had one.
// It keeps at most MaxMachines4x leases.
type machines4x struct {
	mu     sync.Mutex
	leases map[[2]string]store.Lease // by namespace and owner key
	order  [][2]string               // the keys of leases, oldest first
}

// find returns the lease of the 4.x instance whose owner key is owner.
func (m *machines4x) find(ctx context.Context, st store.SlotLeaseStore, ns, owner string) (store.Lease, bool, error) {
	m.mu.Lock()
	kept, known := m.leases[[2]string{ns, owner}]
	m.mu.Unlock()
	a, ok := st.(store.Admin)
	if !ok {
		return kept, known, nil
	}
	l, err := a.LeaseOf(ctx, ns, owner)
	switch {
	case err == nil && l.Incarnation != "":
		return l, true, nil
	case err == nil:
		// A store that hides incarnations (httpstore: the store API's lease-of does)
		// names the lease but does not hand it out: only the one this server kept
		// can be renewed or released.
		if known && kept.Slot == l.Slot && kept.Fence == l.Fence {
			return kept, true, nil
		}
		return store.Lease{}, false, nil
	case !errors.Is(err, store.ErrNotFound):
		return store.Lease{}, false, err
	case !known:
		return store.Lease{}, false, nil
	}
	// The store knows no lease of the instance, but this server handed it one: it was
	// reverted (perhaps through another server), or another instance took the slot.
	// Only the second is a lost machine id; the kept lease fails its renewal so.
	ns2, err := a.Slots(ctx, ns)
	if err != nil {
		return store.Lease{}, false, err
	}
	for _, sl := range ns2.Slots {
		if sl.Slot == kept.Slot && sl.OwnerKey != "" && sl.OwnerKey != owner {
			return kept, true, nil
		}
	}
	m.forget(kept)
	return store.Lease{}, false, nil
}

func (m *machines4x) keep(l store.Lease) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.leases == nil {
		m.leases = map[[2]string]store.Lease{}
	}
	k := [2]string{l.Namespace, l.OwnerKey}
	if _, ok := m.leases[k]; !ok {
		m.order = append(m.order, k)
	}
	m.leases[k] = l
	for len(m.leases) > MaxMachines4x && len(m.order) > 0 {
		delete(m.leases, m.order[0])
		m.order = m.order[1:]
	}
	if len(m.order) > 2*MaxMachines4x { // forgotten keys pile up at the front
		m.order = compactOrder(m.order, m.leases)
	}
}

// compactOrder drops from order the keys no longer in leases.
func compactOrder(order [][2]string, leases map[[2]string]store.Lease) [][2]string {
	out := make([][2]string, 0, len(leases))
	for _, k := range order {
		if _, ok := leases[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

func (m *machines4x) forget(l store.Lease) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.leases, [2]string{l.Namespace, l.OwnerKey})
}

// len reports how many leases m keeps.
func (m *machines4x) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.leases)
}

// machineState4x is 4.x's MachineState.
type machineState4x struct {
	MachineID     int   `json:"machineId"`
	LastTimeStamp int64 `json:"lastTimeStamp"`
}

// machineArgs are the query parameters of the machine routes; owner is the
// instance's owner key (owner4x).
type machineArgs struct {
	ns, instance, owner string
	bits                int
	ttl                 time.Duration
}

// machineQuery reads the query of a machine route, within the server's limits.
func (s *Server) machineQuery(r *http.Request, needBits, needTTL bool) (machineArgs, error) {
	q := r.URL.Query()
	a := machineArgs{ns: r.PathValue("namespace"), instance: q.Get("instanceId")}
	if a.instance == "" {
		return a, bad4x(errors.New("instanceId is missing"))
	}
	a.owner = owner4x(a.instance)
	caps := s.caps()
	if v := q.Get("stable"); v != "" && v != "true" && v != "false" {
		return a, bad4x(fmt.Errorf("stable %q: want true or false", v))
	}
	if needBits {
		bits, err := strconv.Atoi(q.Get("machineBit"))
		if err != nil || bits < 1 || bits > 22 {
			return a, bad4x(fmt.Errorf("machineBit %q: want 1–22", q.Get("machineBit")))
		}
		if bits > caps.maxMachineBit() {
			return a, badRequest("machineBit %d is over this server's limit of %d (%d slots a namespace): raise %s",
				bits, caps.maxMachineBit(), caps.MaxSlots, settingMaxSlots)
		}
		a.bits = bits
	}
	if needTTL {
		ttl, err := parseJavaDuration(q.Get("safeGuardDuration"))
		if err != nil {
			return a, bad4x(fmt.Errorf("safeGuardDuration: %w", err))
		}
		if err := caps.checkTTL("safeGuardDuration", ttl); err != nil {
			return a, err
		}
		a.ttl = ttl
	}
	return a, nil
}

// lastTimeStamp is the highest stamp an earlier owner of l's slot could have used:
// the 4.x client's clock guard waits until its clock passes it.
func lastTimeStamp(l store.Lease) int64 { return max(l.Floor-1, 0) }

// distribute4x serves POST /machines/{namespace}: the instance's machine id, the
// same one while its lease holds. Machine ids are slots of the namespace, handed out
// from 0 upward; the lease lasts safeGuardDuration unless guarded.
func (s *Server) distribute4x(w http.ResponseWriter, r *http.Request) error {
	a, err := s.machineQuery(r, true, true)
	if err != nil {
		return err
	}
	st, err := s.leaseStore(r.Context())
	if err != nil {
		return err
	}
	ctx := r.Context()
	if l, ok, err := s.machines.find(ctx, st, a.ns, a.owner); err != nil {
		return err
	} else if ok {
		renewed, err := st.Renew(ctx, l, a.ttl)
		if err == nil {
			s.machines.keep(renewed)
			write4x(w, http.StatusOK, machineState4x{renewed.Slot, lastTimeStamp(renewed)})
			return nil
		}
		if !errors.Is(err, store.ErrLeaseLost) {
			return err
		}
		s.machines.forget(l)
	}
	l, err := st.Acquire(ctx, store.LeaseRequest{Namespace: a.ns, OwnerKey: a.owner, Limit: 1 << a.bits,
		TTL: a.ttl, Preferred: -1})
	switch {
	case errors.Is(err, store.ErrNoFreeSlot):
		return &err4x{http.StatusBadRequest, codeOverflow, fmt.Errorf("machine ids of namespace %q (%d bits) are all taken: %w", a.ns, a.bits, err)}
	case err != nil:
		return err
	}
	s.machines.keep(l)
	write4x(w, http.StatusOK, machineState4x{l.Slot, lastTimeStamp(l)})
	return nil
}

// instanceLease reads the query of a guard or revert and finds the instance's lease.
func (s *Server) instanceLease(r *http.Request, needTTL bool) (machineArgs, store.SlotLeaseStore, store.Lease, bool, error) {
	a, err := s.machineQuery(r, false, needTTL)
	if err != nil {
		return a, nil, store.Lease{}, false, err
	}
	st, err := s.leaseStore(r.Context())
	if err != nil {
		return a, nil, store.Lease{}, false, err
	}
	l, ok, err := s.machines.find(r.Context(), st, a.ns, a.owner)
	return a, st, l, ok, err
}

// guard4x serves PATCH /machines/{namespace}: renews the instance's lease; M-02 when
// it has none, M-03 when another instance took its machine id.
func (s *Server) guard4x(w http.ResponseWriter, r *http.Request) error {
	a, st, l, ok, err := s.instanceLease(r, true)
	switch {
	case err != nil:
		return err
	case !ok:
		return &err4x{http.StatusBadRequest, codeNotFound, fmt.Errorf("instance %q holds no machine id of namespace %q", a.instance, a.ns)}
	}
	renewed, err := st.Renew(r.Context(), l, a.ttl)
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		s.machines.forget(l)
		return &err4x{http.StatusBadRequest, codeLost, fmt.Errorf("instance %q lost machine id %d of namespace %q: %w", a.instance, l.Slot, a.ns, err)}
	case err != nil:
		return err
	}
	s.machines.keep(renewed)
	return nil
}

// revert4x serves DELETE /machines/{namespace}: a stable instance keeps its machine
// id, to get it back when it starts again; another gives it back, stamped with the
// server's now as its last time. That is 4.x's meaning: the instance says it has
// stopped, and nothing proves it; a forged revert lets the slot's next owner repeat
// the reverted instance's ids. Only 4.x instances' leases are found (owner4x): no Go
// generator's.
func (s *Server) revert4x(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Get("stable") == "true" {
		_, err := s.machineQuery(r, false, false)
		return err
	}
	_, st, l, ok, err := s.instanceLease(r, false)
	switch {
	case err != nil:
		return err
	case !ok:
		return nil // reverting what is not held is done: 4.x's revert is idempotent
	}
	s.machines.forget(l)
	err = st.Release(r.Context(), l, min(s.now().UnixMilli(), l.Ceiling))
	if err != nil && !errors.Is(err, store.ErrLeaseLost) {
		return err
	}
	return nil
}
