package server

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid"
)

// The bounds of StreamRanges and ReadRanges: how many streams are open at once
// (max-streams) and how long one may wait for its client to read (stream-idle). A
// ReadRanges call reserves only what its client asked (readranges.go). A
// StreamRanges call reserves a
// range only once its transport has taken the one before: the ranges ahead of what
// the client has read are the ones in the HTTP/2 flow-control window the client
// grants, and the one being written. A client that stops reading fills that
// window, its next write waits, and after stream-idle the stream is cut, so that a
// held stream costs a bounded gap and frees its slot.

// The API's error codes (cosid-code) of the refusals of a stream.
const (
	codeTooManyStreams = "too_many_streams"
	codeStreamIdle     = "stream_idle"
)

// errStreamIdle is the error of a write that waited stream-idle for the client.
var errStreamIdle = errors.New("server: the client did not read its stream")

// openStream counts a stream of g's ranges opened, or refuses it when g hands out
// no ranges or max-streams are open; the function it returns counts it closed.
func (s *Server) openStream(g *generator) (func(), error) {
	if !g.info.Ranges {
		return nil, noRanges(g)
	}
	most := int64(s.caps().MaxStreams)
	if s.streams.Add(1) > most {
		s.streams.Add(-1)
		err := connect.NewError(connect.CodeResourceExhausted, fmt.Errorf(
			"this server has %d streams open, its limit: retry later, or raise %s", most, settingMaxStreams))
		err.Meta().Set(cosidCode, codeTooManyStreams)
		return nil, err
	}
	if s.metrics != nil {
		s.metrics.StreamOpened()
	}
	return func() {
		s.streams.Add(-1)
		if s.metrics != nil {
			s.metrics.StreamClosed()
		}
	}, nil
}

// streamCut logs a stream of procedure rpc (StreamRanges, ReadRanges) of
// generator name cut after stream-idle without a read, and returns the error it
// ends with. The log line is what an operator sees of it on the HTTP listener:
// net/http resets the stream at its write deadline, so that the client reads a
// reset (gRPC: internal), not this error; grpc-go's listener sends the error.
func (s *Server) streamCut(ctx context.Context, rpc, name string) error {
	idle := s.caps().StreamIdle
	s.logger.WarnContext(ctx, "server: a stream was cut, its client did not read it",
		"rpc", rpc, "generator", name, "stream-idle", idle.String(), "setting", settingStreamIdle)
	return idleError(idle)
}

// sendRange reserves a range of size ids of g (src), charged to the caller, and
// sends it with send: the stream of procedure rpc. A send that waited stream-idle
// for the client cuts the stream; the range it held is a gap, as a dropped answer
// of /range is, and so is the range of a send the client ended.
func (i *idService) sendRange(ctx context.Context, rpc string, g *generator, src cosid.Source, size int64, send func(start, end int64) error) error {
	if err := i.s.chargeRPC(ctx, src, size); err != nil {
		return err
	}
	rg, err := src.NextRange(ctx, size)
	if err != nil {
		return err
	}
	if err := send(rg.Start, rg.End); err != nil {
		if errors.Is(err, errStreamIdle) {
			return i.s.streamCut(ctx, rpc, g.info.Name)
		}
		return err
	}
	return nil
}

// idleError is the error a stream is cut with after idle without a read.
func idleError(idle time.Duration) error {
	err := connect.NewError(connect.CodeDeadlineExceeded, fmt.Errorf(
		"the stream was not read for %v and is cut: read it at least that often, or raise %s", idle, settingStreamIdle))
	err.Meta().Set(cosidCode, codeStreamIdle)
	return err
}

// streamWatch runs a stream's sends on the goroutine of run and cuts the stream
// when one send waits idle: grpc-go's Send blocks, its window full, until the
// stream ends, and only the handler's return ends it (the transport then cancels
// the stream's context, which the blocked send returns on). net/http's streams
// have a write deadline instead (streamWriter). run gets the send to use, which
// records when each send starts and ends.
type streamWatch struct {
	idle    time.Duration
	sending atomic.Int64 // the monotonic start of the send under way, in ns since base; 0: none
	base    time.Time
}

// watchSends runs run with a send that wraps send, and returns its error, or
// errStreamIdle when a send waited idle; run then goes on in the background until
// its blocked send returns, which it does when the handler's return has ended the
// stream: it reserves nothing more.
func watchSends[M any](idle time.Duration, send func(M) error, run func(send func(M) error) error) error {
	w := &streamWatch{idle: idle, base: time.Now()}
	watched := func(m M) error {
		w.sending.Store(int64(time.Since(w.base)) + 1)
		err := send(m)
		w.sending.Store(0)
		return err
	}
	done := make(chan error, 1)
	go func() { done <- run(watched) }()
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-timer.C:
			next := idle
			if start := w.sending.Load(); start != 0 {
				waited := time.Since(w.base) - time.Duration(start-1)
				if waited >= idle {
					return errStreamIdle
				}
				next = idle - waited
			}
			timer.Reset(next)
		}
	}
}
