package server

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cosid-go/cosid/store"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

// storeService implements cosidv1connect.StoreServiceHandler: the store API of
// /v1/store, with its caps and refusals, over the Connect API.
type storeService struct{ s *Server }

func (ss *storeService) Reserve(ctx context.Context, req *connect.Request[cosidv1.ReserveRequest]) (*connect.Response[cosidv1.ReserveResponse], error) {
	st, err := ss.s.rangeStore(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	rg, err := ss.s.storeReserve(ctx, st, m.GetKey(), m.GetSize(), m.GetInitialOffset())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.ReserveResponse{Start: rg.Start, End: rg.End}), nil
}

func (ss *storeService) Seal(ctx context.Context, req *connect.Request[cosidv1.SealRequest]) (*connect.Response[cosidv1.SealResponse], error) {
	st, err := ss.s.rangeStore(ctx)
	if err != nil {
		return nil, err
	}
	if err := st.Seal(ctx, req.Msg.GetKey()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.SealResponse{}), nil
}

func (ss *storeService) GiveBack(ctx context.Context, req *connect.Request[cosidv1.GiveBackRequest]) (*connect.Response[cosidv1.GiveBackResponse], error) {
	st, err := ss.s.rangeStore(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	lowered, err := storeGiveBack(ctx, st, m.GetKey(), store.Range{Start: m.GetStart(), End: m.GetEnd()})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.GiveBackResponse{Lowered: lowered}), nil
}

func (ss *storeService) Acquire(ctx context.Context, req *connect.Request[cosidv1.AcquireRequest]) (*connect.Response[cosidv1.AcquireResponse], error) {
	st, err := ss.s.leaseStore(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	lr := store.LeaseRequest{Namespace: m.GetNamespace(), OwnerKey: m.GetOwnerKey(), Limit: int(m.GetLimit()), Preferred: -1}
	if lr.Tolerance, err = duration("tolerance", m.GetTolerance()); err != nil {
		return nil, err
	}
	if lr.TTL, err = duration("ttl", m.GetTtl()); err != nil {
		return nil, err
	}
	if m.Preferred != nil {
		lr.Preferred = int(m.GetPreferred())
	}
	l, err := ss.s.storeAcquire(ctx, st, lr)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.AcquireResponse{Lease: toLease(l)}), nil
}

func (ss *storeService) Renew(ctx context.Context, req *connect.Request[cosidv1.RenewRequest]) (*connect.Response[cosidv1.RenewResponse], error) {
	st, err := ss.s.leaseStore(ctx)
	if err != nil {
		return nil, err
	}
	ttl, err := duration("ttl", req.Msg.GetTtl())
	if err != nil {
		return nil, err
	}
	l, err := fromLease(req.Msg.GetLease())
	if err != nil {
		return nil, err
	}
	l, err = ss.s.storeRenew(ctx, st, l, ttl)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.RenewResponse{Lease: toLease(l)}), nil
}

func (ss *storeService) Release(ctx context.Context, req *connect.Request[cosidv1.ReleaseRequest]) (*connect.Response[cosidv1.ReleaseResponse], error) {
	st, err := ss.s.leaseStore(ctx)
	if err != nil {
		return nil, err
	}
	l, err := fromLease(req.Msg.GetLease())
	if err != nil {
		return nil, err
	}
	if err := st.Release(ctx, l, req.Msg.GetLastUsedMs()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.ReleaseResponse{}), nil
}

// duration returns the duration d of the field name; unset is zero.
func duration(name string, d *durationpb.Duration) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	if err := d.CheckValid(); err != nil {
		return 0, badRequest("%s: %v", name, err)
	}
	return d.AsDuration(), nil
}

// timestamp returns t as a message; the zero time is unset.
func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// timeOf returns the time of the field name; unset is the zero time.
func timeOf(name string, ts *timestamppb.Timestamp) (time.Time, error) {
	if ts == nil {
		return time.Time{}, nil
	}
	if err := ts.CheckValid(); err != nil {
		return time.Time{}, badRequest("lease.%s: %v", name, err)
	}
	return ts.AsTime(), nil
}

func toLease(l store.Lease) *cosidv1.Lease {
	return &cosidv1.Lease{Namespace: l.Namespace, OwnerKey: l.OwnerKey, Incarnation: l.Incarnation, Slot: int32(l.Slot),
		Fence: l.Fence, ExpiresAt: timestamp(l.ExpiresAt), Floor: l.Floor, Ceiling: l.Ceiling, StoreNow: timestamp(l.StoreNow)}
}

// fromLease returns the lease that a renew or release names; a missing one is a
// bad request, as an empty lease of /v1/store is one the store refuses.
func fromLease(l *cosidv1.Lease) (store.Lease, error) {
	if l == nil {
		return store.Lease{}, badRequest("lease is missing: send the lease that acquire answered")
	}
	out := store.Lease{Namespace: l.GetNamespace(), OwnerKey: l.GetOwnerKey(), Incarnation: l.GetIncarnation(), Slot: int(l.GetSlot()),
		Fence: l.GetFence(), Floor: l.GetFloor(), Ceiling: l.GetCeiling()}
	var err error
	if out.ExpiresAt, err = timeOf("expires_at", l.GetExpiresAt()); err != nil {
		return store.Lease{}, err
	}
	if out.StoreNow, err = timeOf("store_now", l.GetStoreNow()); err != nil {
		return store.Lease{}, err
	}
	return out, nil
}
