package server

import (
	"context"
	"net/http"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// The admin API of /v1/store/admin (store.Admin), which the operator's commands
// call through httpstore. Its routes are served only when the admin role has a
// token, and need it. Delete is never served: its contract is offline only, as a
// deleted key starts anew and would hand out its ids again to generators still
// running.

// adminStore returns the store of the admin routes: 404 without a store, 501 when it
// has no admin operations.
func (s *Server) adminStore(ctx context.Context) (store.Admin, error) {
	st, err := s.rangeStore(ctx)
	if err != nil {
		return nil, err
	}
	a, ok := st.(store.Admin)
	if !ok {
		return nil, &apiError{http.StatusNotImplemented, wire.CodeUnsupported, "the served store has no admin operations"}
	}
	return a, nil
}

func (s *Server) adminKeys(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.adminStore, func(ctx context.Context, st store.Admin, req wire.KeysRequest) (any, error) {
		keys, err := st.Keys(ctx, req.Prefix, req.After, req.Limit)
		out := wire.Keys{Keys: make([]wire.KeyInfo, 0, len(keys))}
		for _, k := range keys {
			out.Keys = append(out.Keys, wire.KeyInfo(k))
		}
		return out, err
	})
}

func (s *Server) adminRaise(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.adminStore, func(ctx context.Context, st store.Admin, req wire.RaiseRequest) (any, error) {
		raised, err := st.RaiseTo(ctx, req.Key, req.Next)
		return wire.Raised(raised), err
	})
}

func (s *Server) adminSlots(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.adminStore, func(ctx context.Context, st store.Admin, req wire.SlotsRequest) (any, error) {
		info, err := st.Slots(ctx, req.Namespace)
		return wire.FromNamespaceInfo(info), err
	})
}

// adminLeaseOf serves lease-of: the lease an owner holds, without its incarnation.
func (s *Server) adminLeaseOf(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.adminStore, func(ctx context.Context, st store.Admin, req wire.LeaseOfRequest) (any, error) {
		l, err := st.LeaseOf(ctx, req.Namespace, req.OwnerKey)
		// The incarnation is the owner's proof in a renew or release: with it, the
		// caller could free a live lease below what its owner may still stamp.
		l.Incarnation = ""
		return wire.FromLease(l), err
	})
}

func (s *Server) adminRaiseFloor(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.adminStore, func(ctx context.Context, st store.Admin, req wire.RaiseFloorRequest) (any, error) {
		tol, err := wire.Duration("tolerance", req.Tolerance)
		if err != nil {
			return nil, err
		}
		if err := s.caps().checkSlots("limit", req.Limit); err != nil {
			return nil, err
		}
		info, err := st.RaiseFloor(ctx, store.FloorRequest{Namespace: req.Namespace, Limit: req.Limit, Tolerance: tol, Slot: req.Slot, FloorMs: req.FloorMs})
		return wire.SlotInfo(info), err
	})
}
