package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/httpstore/wire"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// MaxStreamRange is the most ids one range of StreamRanges may hold: a bulk loader
// that wants more asks for more ranges.
const MaxStreamRange = 1 << 20

// maxSendBytes caps one message this server sends over the Connect API: the largest
// is a Next of MaxCount ids of a long codec, well under it.
const maxSendBytes = 4 << 20

// WithH2C serves HTTP/2 without TLS (h2c, prior knowledge) beside HTTP/1.1 on the
// http.Server of HTTPServer: what a gRPC client that dials without TLS speaks
// (cosid.serve.h2c in the configuration; off by default). Over TLS, HTTP/2 is
// served without it.
func WithH2C(on bool) Option { return func(s *Server) { s.h2c = on } }

// The settings that give the HTTP/2 a stream of both ways needs, as its refusal
// over HTTP/1.1 names them.
const (
	settingH2C      = "cosid.serve.h2c"
	settingGRPCAddr = "cosid.serve.grpc-addr"
)

// protocols returns the protocols of HTTPServer's http.Server: nil (the default:
// HTTP/1.1, and HTTP/2 over TLS) unless h2c is on.
func (s *Server) protocols() *http.Protocols {
	if !s.h2c {
		return nil
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// connectHandlers returns the handlers of the Connect API (IdService, StoreService),
// gRPC health and reflection, by their paths, which the route table mounts on the
// server's mux: the same handler chain as /v1, so the body limit, cross-origin
// rules, metrics and panic recovery of ServeHTTP apply, and each service needs the
// token of its route's role.
func (s *Server) connectHandlers() map[string]http.Handler {
	readMax := connect.WithReadMaxBytes(int(min(s.limit, 1<<30)))
	base := append(strictJSONCodecs(), readMax)
	opts := append([]connect.HandlerOption{connect.WithSendMaxBytes(maxSendBytes), connect.WithInterceptors(rpcErrors{s: s})}, base...)
	reflector := grpcreflect.NewStaticReflector(cosidv1connect.IdServiceName, cosidv1connect.StoreServiceName, grpchealth.HealthV1ServiceName)
	handlers := map[string]http.Handler{}
	for _, mk := range []func() (string, http.Handler){
		func() (string, http.Handler) { return cosidv1connect.NewIdServiceHandler(&idService{s: s}, opts...) },
		func() (string, http.Handler) {
			return cosidv1connect.NewStoreServiceHandler(&storeService{s: s}, opts...)
		},
		func() (string, http.Handler) { return grpchealth.NewHandler(healthChecker{s: s}, base...) },
		func() (string, http.Handler) { return grpcreflect.NewHandlerV1(reflector, base...) },
		func() (string, http.Handler) { return grpcreflect.NewHandlerV1Alpha(reflector, base...) },
	} {
		path, h := mk()
		handlers[path] = h
	}
	return handlers
}

// streamWriter gives each send of a server stream a write deadline stream-idle
// from its start, and takes it off once the send is flushed: the http.Server's
// WriteTimeout would end a stream that lasts longer than it, a client that stops
// reading would hold a stream without one, and net/http resets an HTTP/2 stream
// whose deadline passes, written to or not, so a deadline left on would cut a
// stream that waits for its store or for its client's ask. A write or flush past
// its deadline (net/http has then reset the stream) makes this and every later
// write fail with errStreamIdle. connect-go writes a message into net/http's
// buffer and then flushes it, dropping the flush's error, and the flush is where a
// send waits for the client: the send reads cut (watchedSend), reached through the
// request's context.
type streamWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	idle  time.Duration
	until time.Time // the deadline of the send under way; zero between sends
	cut   bool      // a write or flush ran past its deadline
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if w.cut {
		return 0, errStreamIdle
	}
	deadline := w.deadline()
	n, err := w.ResponseWriter.Write(p)
	if err != nil && !time.Now().Before(deadline) {
		w.cut = true
		err = fmt.Errorf("%w: %w", errStreamIdle, err)
	}
	return n, err
}

func (w *streamWriter) Flush() {
	if w.cut {
		return
	}
	deadline := w.until
	if deadline.IsZero() { // a flush without a write before it
		deadline = w.deadline()
	}
	// A flush that returns at its deadline was cut, whether or not the writers
	// between here and net/http pass its error on.
	_ = w.rc.Flush()
	if !time.Now().Before(deadline) {
		w.cut = true
		return
	}
	_ = w.rc.SetWriteDeadline(time.Time{})
	w.until = time.Time{}
}

// deadline sets the write deadline stream-idle from now and returns it. A writer
// without deadlines (a test's recorder) streams without one.
func (w *streamWriter) deadline() time.Time {
	w.until = time.Now().Add(w.idle)
	_ = w.rc.SetWriteDeadline(w.until)
	return w.until
}

func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// streamWriterKey is the context key of a stream's streamWriter.
type streamWriterKey struct{}

// rpcErrors turns the errors of the handlers into Connect errors, as fail does for
// /v1: the code of the status, the API's error code in the cosid-code metadata.
type rpcErrors struct{ s *Server }

func (e rpcErrors) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		if err != nil {
			err = e.s.rpcError(ctx, req.Spec().Procedure, err)
		}
		return res, err
	}
}

func (rpcErrors) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (e rpcErrors) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		if err != nil {
			err = e.s.rpcError(ctx, conn.Spec().Procedure, err)
		}
		return err
	}
}

// cosidCode is the metadata key of the API's error code (wire.Code…) of an error.
const cosidCode = "cosid-code"

// rpcError returns err as the Connect error the caller gets, and records it for the
// audit log.
func (s *Server) rpcError(ctx context.Context, procedure string, err error) error {
	cerr := s.toConnectError(ctx, procedure, err)
	if out, ok := ctx.Value(rpcOutcomeKey{}).(*rpcOutcome); ok {
		out.err = cerr
	}
	return cerr
}

func (s *Server) toConnectError(ctx context.Context, procedure string, err error) *connect.Error {
	var cerr *connect.Error
	if errors.As(err, &cerr) {
		return cerr // connect's own: a bad message, a stream the client ended
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return connect.NewError(connect.CodeOf(ctx.Err()), err)
	}
	var ae *apiError
	var tooLarge *http.MaxBytesError
	var re *rateError
	var code connect.Code
	var wcode, msg string
	switch {
	case errors.As(err, &ae):
		code, wcode, msg = codeOfStatus(ae.status), ae.code, ae.msg
	case errors.As(err, &re):
		code, wcode, msg = connect.CodeResourceExhausted, codeRateLimited, re.msg
	case errors.As(err, &tooLarge):
		code, wcode, msg = connect.CodeResourceExhausted, wire.CodeTooLarge, fmt.Sprintf("the request is over the limit of %d bytes", tooLarge.Limit)
	case errors.Is(err, cosid.ErrUnknownGenerator):
		code, wcode, msg = connect.CodeNotFound, wire.CodeUnknownGenerator, err.Error()
	case badKey(err):
		code, wcode, msg = connect.CodeInvalidArgument, wire.CodeInvalidArgument, err.Error()
	case errors.Is(err, cosid.ErrMaxKeys):
		// The 409 of /v1: no retry helps until max-keys is raised.
		code, wcode, msg = connect.CodeFailedPrecondition, codeMaxKeys, err.Error()
	default:
		var status int
		status, wcode = wire.Classify(err)
		code, msg = codeOfStatus(status), err.Error()
		switch wcode {
		case wire.CodeExhausted, wire.CodeNoFreeSlot:
			code = connect.CodeResourceExhausted
		case wire.CodeNotSetUp:
			code = connect.CodeFailedPrecondition
		case wire.CodeUnavailable:
			// The error names the store's host, user and database: the log has it.
			s.logger.Warn("server: store unavailable", "procedure", procedure, "err", err)
			msg = "a store is unavailable; the server's log has the details"
		}
	}
	cerr = connect.NewError(code, errors.New(msg))
	cerr.Meta().Set(cosidCode, wcode)
	if detail, err := connect.NewErrorDetail(&cosidv1.ErrorInfo{Code: wcode}); err == nil {
		cerr.AddDetail(detail) // the code in the body too, where /v1 has it
	}
	return cerr
}

// codeOfStatus is the Connect code of an HTTP status of the API.
func codeOfStatus(status int) connect.Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		return connect.CodeInvalidArgument
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated
	case http.StatusForbidden:
		return connect.CodePermissionDenied
	case http.StatusNotFound:
		return connect.CodeNotFound
	case http.StatusConflict:
		return connect.CodeFailedPrecondition
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return connect.CodeResourceExhausted
	case http.StatusNotImplemented:
		return connect.CodeUnimplemented
	case http.StatusServiceUnavailable:
		return connect.CodeUnavailable
	}
	return connect.CodeInternal
}
