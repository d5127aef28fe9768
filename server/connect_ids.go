package server

import (
	"context"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/httpstore/wire"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// IdService of the Connect API, and gRPC health.

// rpcCount reads the count of a Next or NextRange: 0 is 1, as a missing ?count is.
func rpcCount(n int64) (int64, error) {
	if n == 0 {
		return 1, nil
	}
	if n < 1 || n > MaxCount {
		return 0, badRequest("count %d: want a whole number from 1 to %d", n, MaxCount)
	}
	return n, nil
}

// counted resolves the generator, key and count of a Next or NextRange, as /next and
// /range read theirs, and charges the count to the rate of the call's caller.
func (s *Server) counted(ctx context.Context, name, key string, count int64) (*generator, cosid.Source, int64, error) {
	g, src, err := s.lookup(name, key)
	if err != nil {
		return nil, src, 0, err
	}
	n, err := rpcCount(count)
	if err != nil {
		return nil, src, 0, err
	}
	return g, src, n, s.chargeRPC(ctx, src, n)
}

// idService implements cosidv1connect.IdServiceHandler over the server's generators.
type idService struct{ s *Server }

func (i *idService) Next(ctx context.Context, req *connect.Request[cosidv1.NextRequest]) (*connect.Response[cosidv1.NextResponse], error) {
	g, src, n, err := i.s.counted(ctx, req.Msg.GetName(), req.Msg.GetKey(), req.Msg.GetCount())
	if err != nil {
		return nil, err
	}
	ids, err := texts(ctx, g, src, n)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.NextResponse{Ids: ids}), nil
}

func (i *idService) NextRange(ctx context.Context, req *connect.Request[cosidv1.NextRangeRequest]) (*connect.Response[cosidv1.NextRangeResponse], error) {
	g, src, n, err := i.s.counted(ctx, req.Msg.GetName(), req.Msg.GetKey(), req.Msg.GetCount())
	if err != nil {
		return nil, err
	}
	rg, err := takeRange(ctx, g, src, n)
	if err != nil {
		return nil, err
	}
	resp := connect.NewResponse(&cosidv1.NextRangeResponse{Start: rg.Start, End: rg.End})
	if id := i.s.generatorStoreID(ctx, g); id != "" {
		resp.Header().Set(wire.HeaderStoreID, id)
	}
	return resp, nil
}

func (i *idService) StreamRanges(ctx context.Context, req *connect.Request[cosidv1.StreamRangesRequest], stream *connect.ServerStream[cosidv1.StreamRangesResponse]) error {
	return i.streamRanges(ctx, req.Msg, watchedSend(ctx, stream.Send))
}

// streamRanges answers a StreamRanges call of either transport, sending each range
// with send. It reserves a range only when send has taken the one before, so that
// it runs ahead of its client by the one range being written and those the
// transport holds for the client (its flow-control window); a send that waits
// stream-idle for the client fails with errStreamIdle, the transport's doing.
func (i *idService) streamRanges(ctx context.Context, req *cosidv1.StreamRangesRequest, send func(*cosidv1.StreamRangesResponse) error) error {
	g, src, err := i.s.lookup(req.GetName(), req.GetKey())
	if err != nil {
		return err
	}
	size, most := req.GetSize(), req.GetMaxRanges()
	if err := checkRangeSize(size); err != nil {
		return err
	}
	if most < 0 {
		return badRequest("max_ranges %d: want 0 (until the client stops) or more", most)
	}
	closed, err := i.s.openStream(g)
	if err != nil {
		return err
	}
	defer closed()
	msg := new(cosidv1.StreamRangesResponse)
	sendMsg := func(start, end int64) error {
		msg.Start, msg.End = start, end
		return send(msg)
	}
	for sent := int64(0); most == 0 || sent < most; sent++ {
		if err := ctx.Err(); err != nil {
			return err // the client ended the stream
		}
		if err := i.sendRange(ctx, "StreamRanges", g, src, size, sendMsg); err != nil {
			return err
		}
	}
	return nil
}

func (i *idService) Decode(_ context.Context, req *connect.Request[cosidv1.DecodeRequest]) (*connect.Response[cosidv1.DecodeResponse], error) {
	g, err := i.s.generatorNamed(req.Msg.GetName())
	if err != nil {
		return nil, err
	}
	text := req.Msg.GetText()
	d, err := i.s.rt.Decode(g.info.Name, text)
	if err != nil {
		return nil, badRequest("text %q: %v", text, err)
	}
	out := &cosidv1.DecodeResponse{Value: d.Value, Period: d.Period}
	if st := d.Snowflake; st != nil {
		out.Time = timestamp(st.Time)
		m, q := int32(st.Machine), int32(st.Sequence)
		out.Machine, out.Sequence = &m, &q
	}
	return connect.NewResponse(out), nil
}

func (i *idService) ListGenerators(ctx context.Context, _ *connect.Request[cosidv1.ListGeneratorsRequest]) (*connect.Response[cosidv1.ListGeneratorsResponse], error) {
	out := &cosidv1.ListGeneratorsResponse{Generators: make([]*cosidv1.Generator, 0, len(i.s.names))}
	for _, name := range i.s.names {
		g := i.s.gens[name]
		gen := &cosidv1.Generator{Name: name, Strategy: g.info.Strategy.String(),
			Key: g.info.Key, Store: g.info.Store, State: i.s.state(ctx, g), Keyed: g.info.Keyed}
		if g.info.Keyed {
			live := int64(i.s.rt.Stats(name).Keys.Live)
			gen.LiveKeys = &live
		}
		out.Generators = append(out.Generators, gen)
	}
	return connect.NewResponse(out), nil
}

// healthChecker answers gRPC health checks as /readyz does: serving when every
// readiness check passes, for the server ("") and each of its services.
type healthChecker struct{ s *Server }

func (h healthChecker) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	switch req.Service {
	case "", cosidv1connect.IdServiceName, cosidv1connect.StoreServiceName:
	default:
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no service %q; this server has %s and %s",
			req.Service, cosidv1connect.IdServiceName, cosidv1connect.StoreServiceName))
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "/readyz", http.NoBody)
	if err != nil {
		return nil, err
	}
	for _, err := range h.s.results(r) {
		if err != nil {
			return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
		}
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}
