package server

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosid-go/cosid/store"
)

// tracerName names the tracer of the spans this package makes.
const tracerName = "github.com/cosid-go/cosid/server"

// TraceStore returns st with a span of tp around each of its calls: store.reserve,
// store.seal, store.acquire, store.renew, store.release, and the admin calls, with
// the attributes cosid.store.name (name), cosid.store.type (typ) and cosid.store.key
// (the key, or the lease namespace). A span is made only where a call goes to the
// store, never per id. The store returned is a store.SlotLeaseStore and a
// store.Admin where st is one; it also reports st's store.Timeouter timeout,
// answers st's store.Pinger Ping (nil where st has none) and its store.Identifier
// identity ("" where st has none, which callers take as none), and passes its
// store.GiveBacker give-backs on (reporting false where st takes none, so that the
// tail stays a gap, as it does without the capability).
func TraceStore(tp trace.TracerProvider, name, typ string, st store.RangeStore) store.RangeStore {
	t := &tracedStore{st: st, tracer: tp.Tracer(tracerName),
		attrs: []attribute.KeyValue{attribute.String("cosid.store.name", name), attribute.String("cosid.store.type", typ)}}
	leases, isLeases := st.(store.SlotLeaseStore)
	admin, isAdmin := st.(store.Admin)
	switch {
	case isLeases && isAdmin:
		return struct {
			*tracedStore
			tracedLeases
			tracedAdmin
		}{t, tracedLeases{t, leases}, tracedAdmin{t, admin}}
	case isLeases:
		return struct {
			*tracedStore
			tracedLeases
		}{t, tracedLeases{t, leases}}
	case isAdmin:
		return struct {
			*tracedStore
			tracedAdmin
		}{t, tracedAdmin{t, admin}}
	}
	return t
}

// TraceStores returns the wrapper of cosid.WithStoreWrapper that traces every
// store of a runtime with TraceStore.
func TraceStores(tp trace.TracerProvider) func(name, typ string, st store.RangeStore) store.RangeStore {
	return func(name, typ string, st store.RangeStore) store.RangeStore { return TraceStore(tp, name, typ, st) }
}

// tracedStore is the RangeStore of TraceStore.
type tracedStore struct {
	st     store.RangeStore
	tracer trace.Tracer
	attrs  []attribute.KeyValue // the store's name and type
}

// start starts the span of the call op of key.
func (t *tracedStore) start(ctx context.Context, op, key string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	all := append(append(attrs, t.attrs...), attribute.String("cosid.store.key", key))
	return t.tracer.Start(ctx, "store."+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(all...))
}

// end ends span with the outcome err.
func end(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

func (t *tracedStore) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	ctx, span := t.start(ctx, "reserve", key, attribute.Int64("cosid.reserve.size", size))
	r, err := t.st.Reserve(ctx, key, size, initialOffset)
	end(span, err)
	return r, err
}

func (t *tracedStore) Seal(ctx context.Context, key string) error {
	ctx, span := t.start(ctx, "seal", key)
	err := t.st.Seal(ctx, key)
	end(span, err)
	return err
}

func (t *tracedStore) Close() error { return t.st.Close() }

// Timeout is st's store.Timeouter timeout, or 0 (none) where st has none.
func (t *tracedStore) Timeout() time.Duration {
	if to, ok := t.st.(store.Timeouter); ok {
		return to.Timeout()
	}
	return 0
}

// Ping is st's store.Pinger Ping, or nil where st has nothing to reach.
func (t *tracedStore) Ping(ctx context.Context) error {
	p, ok := t.st.(store.Pinger)
	if !ok {
		return nil
	}
	ctx, span := t.start(ctx, "ping", "")
	err := p.Ping(ctx)
	end(span, err)
	return err
}

// StoreID is st's store.Identifier identity, or "" where st has none.
func (t *tracedStore) StoreID(ctx context.Context) (string, error) {
	id, ok := t.st.(store.Identifier)
	if !ok {
		return "", nil
	}
	return id.StoreID(ctx)
}

// GiveBack is st's store.GiveBacker GiveBack (S7), or false where st takes none.
func (t *tracedStore) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	gb, ok := t.st.(store.GiveBacker)
	if !ok {
		return false, nil
	}
	ctx, span := t.start(ctx, "give_back", key, attribute.Int64("cosid.give_back.start", tail.Start), attribute.Int64("cosid.give_back.end", tail.End))
	lowered, err := gb.GiveBack(ctx, key, tail)
	span.SetAttributes(attribute.Bool("cosid.give_back.lowered", lowered))
	end(span, err)
	return lowered, err
}

// tracedLeases are the SlotLeaseStore calls of TraceStore.
type tracedLeases struct {
	t  *tracedStore
	st store.SlotLeaseStore
}

func (l tracedLeases) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	ctx, span := l.t.start(ctx, "acquire", req.Namespace, attribute.String("cosid.lease.owner", req.OwnerKey))
	lease, err := l.st.Acquire(ctx, req)
	if err == nil {
		span.SetAttributes(attribute.Int("cosid.lease.slot", lease.Slot))
	}
	end(span, err)
	return lease, err
}

func (l tracedLeases) Renew(ctx context.Context, lease store.Lease, ttl time.Duration) (store.Lease, error) {
	ctx, span := l.t.start(ctx, "renew", lease.Namespace, attribute.Int("cosid.lease.slot", lease.Slot))
	renewed, err := l.st.Renew(ctx, lease, ttl)
	end(span, err)
	return renewed, err
}

func (l tracedLeases) Release(ctx context.Context, lease store.Lease, lastUsedMs int64) error {
	ctx, span := l.t.start(ctx, "release", lease.Namespace, attribute.Int("cosid.lease.slot", lease.Slot))
	err := l.st.Release(ctx, lease, lastUsedMs)
	end(span, err)
	return err
}

// tracedAdmin are the Admin calls of TraceStore, beyond the RangeStore's.
type tracedAdmin struct {
	t  *tracedStore
	st store.Admin
}

func (a tracedAdmin) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	ctx, span := a.t.start(ctx, "keys", prefix)
	keys, err := a.st.Keys(ctx, prefix, after, limit)
	end(span, err)
	return keys, err
}

func (a tracedAdmin) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	ctx, span := a.t.start(ctx, "raise", key)
	r, err := a.st.RaiseTo(ctx, key, next)
	end(span, err)
	return r, err
}

func (a tracedAdmin) Delete(ctx context.Context, key string) error {
	ctx, span := a.t.start(ctx, "delete", key)
	err := a.st.Delete(ctx, key)
	end(span, err)
	return err
}

func (a tracedAdmin) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	ctx, span := a.t.start(ctx, "slots", namespace)
	ns, err := a.st.Slots(ctx, namespace)
	end(span, err)
	return ns, err
}

func (a tracedAdmin) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	ctx, span := a.t.start(ctx, "raise-floor", req.Namespace, attribute.Int("cosid.lease.slot", req.Slot))
	s, err := a.st.RaiseFloor(ctx, req)
	end(span, err)
	return s, err
}

func (a tracedAdmin) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	ctx, span := a.t.start(ctx, "lease-of", namespace, attribute.String("cosid.lease.owner", ownerKey))
	l, err := a.st.LeaseOf(ctx, namespace, ownerKey)
	end(span, err)
	return l, err
}
