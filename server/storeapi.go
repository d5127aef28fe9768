package server

import (
	"context"
	"net/http"

	"github.com/cosid-go/cosid/internal/wire"
	"github.com/cosid-go/cosid/store"
)

// rangeStore returns the store of the store API, or a 404 when none is served.
func (s *Server) rangeStore() (store.RangeStore, error) {
	if s.st == nil {
		return nil, &apiError{http.StatusNotFound, wire.CodeNotFound, "this server serves no store: set cosid.serve.store in its configuration"}
	}
	return s.st, nil
}

// leaseStore returns the store of the lease routes: 404 without a store, 501 when it
// cannot lease slots.
func (s *Server) leaseStore() (store.SlotLeaseStore, error) {
	if _, err := s.rangeStore(); err != nil {
		return nil, err
	}
	if s.leases == nil {
		return nil, &apiError{http.StatusNotImplemented, wire.CodeUnsupported, "the served store cannot lease slots"}
	}
	return s.leases, nil
}

// storeCall serves a route of the store API: it decodes the body into a Req and
// answers what call returns, as JSON.
func storeCall[Req any](w http.ResponseWriter, r *http.Request, check func() error, call func(ctx context.Context, req Req) (any, error)) error {
	if err := check(); err != nil {
		return err
	}
	var req Req
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	out, err := call(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) hasStore() error {
	_, err := s.rangeStore()
	return err
}

func (s *Server) hasLeases() error {
	_, err := s.leaseStore()
	return err
}

func (s *Server) reserve(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.hasStore, func(ctx context.Context, req wire.ReserveRequest) (any, error) {
		rg, err := s.st.Reserve(ctx, req.Key, req.Size, req.InitialOffset)
		return wire.Range(rg), err
	})
}

func (s *Server) seal(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.hasStore, func(ctx context.Context, req wire.SealRequest) (any, error) {
		return struct{}{}, s.st.Seal(ctx, req.Key)
	})
}

func (s *Server) acquire(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.hasLeases, func(ctx context.Context, body wire.LeaseRequest) (any, error) {
		req, err := body.Store()
		if err != nil {
			return nil, err
		}
		l, err := s.leases.Acquire(ctx, req)
		return wire.FromLease(l), err
	})
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.hasLeases, func(ctx context.Context, body wire.RenewRequest) (any, error) {
		ttl, err := wire.Duration("ttl", body.TTL)
		if err != nil {
			return nil, err
		}
		l, err := s.leases.Renew(ctx, body.Lease.Store(), ttl)
		return wire.FromLease(l), err
	})
}

func (s *Server) release(w http.ResponseWriter, r *http.Request) error {
	return storeCall(w, r, s.hasLeases, func(ctx context.Context, body wire.ReleaseRequest) (any, error) {
		return struct{}{}, s.leases.Release(ctx, body.Lease.Store(), body.LastUsedMs)
	})
}
