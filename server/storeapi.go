package server

import (
	"context"
	"net/http"

	"github.com/cosid-go/cosid/internal/wire"
	"github.com/cosid-go/cosid/store"
)

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
		rg, err := st.Reserve(ctx, req.Key, req.Size, req.InitialOffset)
		return wire.Range(rg), err
	})
}

func (s *Server) seal(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.rangeStore, func(ctx context.Context, st store.RangeStore, req wire.SealRequest) (any, error) {
		return struct{}{}, st.Seal(ctx, req.Key)
	})
}

func (s *Server) acquire(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.leaseStore, func(ctx context.Context, st store.SlotLeaseStore, body wire.LeaseRequest) (any, error) {
		req, err := body.Store()
		if err != nil {
			return nil, err
		}
		l, err := st.Acquire(ctx, req)
		return wire.FromLease(l), err
	})
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.leaseStore, func(ctx context.Context, st store.SlotLeaseStore, body wire.RenewRequest) (any, error) {
		ttl, err := wire.Duration("ttl", body.TTL)
		if err != nil {
			return nil, err
		}
		l, err := st.Renew(ctx, body.Lease.Store(), ttl)
		return wire.FromLease(l), err
	})
}

func (s *Server) release(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.leaseStore, func(ctx context.Context, st store.SlotLeaseStore, body wire.ReleaseRequest) (any, error) {
		return struct{}{}, st.Release(ctx, body.Lease.Store(), body.LastUsedMs)
	})
}
