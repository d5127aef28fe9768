package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// The store API of /v1/store, which package httpstore calls: reserve, seal, and
// the slot leases acquire, renew, release; ping.

// rangeStore returns the store of the store API, or a 404 when none is served.
func (s *Server) rangeStore(ctx context.Context) (store.RangeStore, error) {
	if s.store == nil {
		return nil, &apiError{http.StatusNotFound, wire.CodeNotFound, "this server serves no store: set cosid.serve.store in its configuration"}
	}
	return s.store(ctx)
}

// leaseStore returns the store of the lease routes: 404 without a store, 501 when it
// cannot lease slots.
func (s *Server) leaseStore(ctx context.Context) (store.SlotLeaseStore, error) {
	st, err := s.rangeStore(ctx)
	if err != nil {
		return nil, err
	}
	leases, ok := st.(store.SlotLeaseStore)
	if !ok {
		return nil, &apiError{http.StatusNotImplemented, wire.CodeUnsupported, "the served store cannot lease slots"}
	}
	return leases, nil
}

// storeCall serves a route of the store API: it decodes the body into a Req and
// answers what call returns, as JSON.
func storeCall[St, Req any](w http.ResponseWriter, r *http.Request, get func(context.Context) (St, error),
	call func(ctx context.Context, st St, req Req) (any, error)) error {
	st, err := get(r.Context())
	if err != nil {
		return err
	}
	var req Req
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	out, err := call(r.Context(), st, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) reserve(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.rangeStore, func(ctx context.Context, st store.RangeStore, req wire.ReserveRequest) (any, error) {
		rg, err := s.storeReserve(ctx, st, req.Key, req.Size, req.InitialOffset)
		return wire.Range(rg), err
	})
}

// storeReserve is the store API's reserve, of /v1/store and of the Connect API.
func (s *Server) storeReserve(ctx context.Context, st store.RangeStore, key string, size, initialOffset int64) (store.Range, error) {
	if err := s.caps().checkReserve("size", size); err != nil {
		return store.Range{}, err
	}
	return st.Reserve(ctx, key, size, initialOffset)
}

func (s *Server) seal(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.rangeStore, func(ctx context.Context, st store.RangeStore, req wire.SealRequest) (any, error) {
		return struct{}{}, st.Seal(ctx, req.Key)
	})
}

// giveBack serves PathGiveBack: the served store's GiveBack (S7), or false where
// the store takes none, so that the caller's tail stays a gap as it would on that
// store in its own process.
func (s *Server) giveBack(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.rangeStore, func(ctx context.Context, st store.RangeStore, req wire.GiveBackRequest) (any, error) {
		lowered, err := storeGiveBack(ctx, st, req.Key, store.Range{Start: req.Start, End: req.End})
		return wire.GivenBack{Lowered: lowered}, err
	})
}

// storeGiveBack is the store API's give-back, of /v1/store and of the Connect API.
func storeGiveBack(ctx context.Context, st store.RangeStore, key string, tail store.Range) (bool, error) {
	gb, ok := st.(store.GiveBacker)
	if !ok {
		return false, nil
	}
	return gb.GiveBack(ctx, key, tail)
}

func (s *Server) acquire(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.leaseStore, func(ctx context.Context, st store.SlotLeaseStore, body wire.LeaseRequest) (any, error) {
		req, err := body.Store()
		if err != nil {
			return nil, err
		}
		l, err := s.storeAcquire(ctx, st, req)
		return wire.FromLease(l), err
	})
}

// storeAcquire is the store API's acquire, of /v1/store and of the Connect API.
func (s *Server) storeAcquire(ctx context.Context, st store.SlotLeaseStore, req store.LeaseRequest) (store.Lease, error) {
	if err := s.checkLeaseOwner(req.OwnerKey); err != nil {
		return store.Lease{}, err
	}
	caps := s.caps()
	if err := caps.checkSlots("limit", req.Limit); err != nil {
		return store.Lease{}, err
	}
	if err := caps.checkTTL("ttl", req.TTL); err != nil {
		return store.Lease{}, err
	}
	return st.Acquire(ctx, req)
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.leaseStore, func(ctx context.Context, st store.SlotLeaseStore, body wire.RenewRequest) (any, error) {
		ttl, err := wire.Duration("ttl", body.TTL)
		if err != nil {
			return nil, err
		}
		l, err := s.storeRenew(ctx, st, body.Lease.Store(), ttl)
		return wire.FromLease(l), err
	})
}

// storeRenew is the store API's renew, of /v1/store and of the Connect API.
func (s *Server) storeRenew(ctx context.Context, st store.SlotLeaseStore, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := s.caps().checkTTL("ttl", ttl); err != nil {
		return store.Lease{}, err
	}
	return st.Renew(ctx, l, ttl)
}

// release serves the store API's release. The store frees the slot only for the
// lease's exact owner key, incarnation and fence (L2); the incarnation is answered to
// the acquirer alone (lease-of does not give it), so a caller that names a lease it
// did not acquire frees nothing and cannot lower the next owner's floor.
func (s *Server) release(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.leaseStore, func(ctx context.Context, st store.SlotLeaseStore, body wire.ReleaseRequest) (any, error) {
		return struct{}{}, st.Release(ctx, body.Lease.Store(), body.LastUsedMs)
	})
}

// checkLeaseOwner refuses the owner keys of the 4.x API's leases (OwnerKeyPrefix4x)
// to the store API's acquire, so that no lease the 4.x API finds is an httpstore
// process's. (Renewing or releasing a 4.x lease takes its incarnation, which no
// route answers.)
func (s *Server) checkLeaseOwner(owner string) error {
	if strings.HasPrefix(owner, OwnerKeyPrefix4x) {
		return badRequest("ownerKey %q: the prefix %q is reserved for the leases of the 4.x machine API", owner, OwnerKeyPrefix4x)
	}
	return nil
}

// storePing answers GET wire.PathPing: the served store's identity once the store
// answered its own Ping (a store.Pinger; a store that is not one, such as memory,
// has nothing to reach). It lets an httpstore's Ping check the server, its token and the store
// behind it at once, without writing anything.
func (s *Server) storePing(w http.ResponseWriter, r *http.Request) error {
	st, err := s.rangeStore(r.Context())
	if err != nil {
		return err
	}
	if p, ok := st.(store.Pinger); ok {
		if err := p.Ping(r.Context()); err != nil {
			return err
		}
	}
	id, err := s.storeIdentity(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.Ping{StoreID: id})
	return nil
}
