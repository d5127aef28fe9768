package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"connectrpc.com/connect"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

// ReadRanges is StreamRanges whose client says how far ahead it reads: each of
// its messages asks for more ranges, and the server reserves a range only for one
// asked and not yet sent. A stream's cost to the store is then what its client
// asked for, whatever its HTTP/2 window, where StreamRanges' is what the window
// holds, which the server cannot see read. It is the demand of Reactive Streams
// (request(n)) in gRPC's terms.

// MaxReadAhead is the most ranges a ReadRanges call may have asked for and not yet
// been sent: the deepest read-ahead a bulk loader keeps, and what a stream held
// unread can cost the store, MaxReadAhead × its size.
const MaxReadAhead = 1 << 10

// readRanges answers a ReadRanges call of either transport: recv returns the
// client's next message (io.EOF once it closed its side), send sends a range. recv
// runs on a goroutine of its own, which may outlive the call until the transport
// ends the stream: every later message is dropped.
func (i *idService) readRanges(ctx context.Context, recv func() (*cosidv1.ReadRangesRequest, error), send func(*cosidv1.ReadRangesResponse) error) error {
	first, err := recv()
	if errors.Is(err, io.EOF) {
		return badRequest("ReadRanges: the client closed the stream before its first message, which names the generator and the size")
	}
	if err != nil {
		return err
	}
	g, src, err := i.s.lookup(first.GetName(), first.GetKey())
	if err != nil {
		return err
	}
	size, owed := first.GetSize(), first.GetWant()
	if err := checkRangeSize(size); err != nil {
		return err
	}
	if owed < 0 || owed > MaxReadAhead {
		return badRequest("want %d in the first message: want 0 to %d ranges ahead (MaxReadAhead)", owed, MaxReadAhead)
	}
	closed, err := i.s.openStream(g)
	if err != nil {
		return err
	}
	defer closed()
	owed += plantReadAhead

	asks := make(chan ask)
	done := make(chan struct{})
	defer close(done)
	go receiveAsks(recv, asks, done)

	idle := i.s.caps().StreamIdle
	wait := time.NewTimer(idle)
	defer wait.Stop()
	ended := false // the client closed its side
	msg := new(cosidv1.ReadRangesResponse)
	sendMsg := func(start, end int64) error {
		msg.Start, msg.End = start, end
		return send(msg)
	}
	for n := int64(2); ; {
		if owed == 0 {
			if ended {
				return nil
			}
			// Nothing to send until the client asks: it has idle to do so.
			wait.Reset(idle)
			select {
			case a := <-asks:
				if ended, err = a.add(&owed, n); err != nil {
					return err
				}
				n++
			case <-wait.C:
				return i.s.askIdle(ctx, g.info.Name)
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		select { // an ask that came while the last range was sent
		case a := <-asks:
			if ended, err = a.add(&owed, n); err != nil {
				return err
			}
			n++
			continue
		default:
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		owed--
		if err := i.sendRange(ctx, "ReadRanges", g, src, size, sendMsg); err != nil {
			return err
		}
	}
}

// ask is a message of a ReadRanges client after its first, or how its side of the
// stream ended: io.EOF when it closed it.
type ask struct {
	msg *cosidv1.ReadRangesRequest
	err error
}

// receiveAsks passes the client's messages to asks until its side ends or done is
// closed (the call has ended).
func receiveAsks(recv func() (*cosidv1.ReadRangesRequest, error), asks chan<- ask, done <-chan struct{}) {
	for {
		m, err := recv()
		select {
		case asks <- ask{m, err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

// add adds the ranges a asks for to owed, the ranges asked and not yet sent, and
// reports whether the client closed its side. a is the n-th message of its
// stream, as its errors name it.
func (a ask) add(owed *int64, n int64) (ended bool, err error) {
	if errors.Is(a.err, io.EOF) {
		return true, nil
	}
	if a.err != nil {
		return false, a.err
	}
	m := a.msg
	if m.GetName() != "" || m.GetKey() != "" || m.GetSize() != 0 {
		return false, badRequest("message %d of ReadRanges sets name, key or size: only the first message does, the later ones ask for more ranges (want)", n)
	}
	want := m.GetWant()
	if want < 1 {
		return false, badRequest("want %d in message %d of ReadRanges: a message after the first asks for at least 1 range", want, n)
	}
	if want > MaxReadAhead-*owed {
		return false, badRequest("want %d in message %d of ReadRanges: %d ranges are asked and not yet sent, and at most %d may be (MaxReadAhead); ask for more as ranges arrive",
			want, n, *owed, MaxReadAhead)
	}
	*owed += want
	return false, nil
}

// checkRangeSize checks the size of a stream's ranges.
func checkRangeSize(size int64) error {
	if size < 1 || size > MaxStreamRange {
		return badRequest("size %d: want the ids of a range, from 1 to %d", size, MaxStreamRange)
	}
	return nil
}

// askIdle logs a ReadRanges stream of generator name cut after stream-idle without
// a message while it had no range to send, and returns the error it ends with: an
// idle stream holds a slot of max-streams.
func (s *Server) askIdle(ctx context.Context, name string) error {
	idle := s.caps().StreamIdle
	s.logger.WarnContext(ctx, "server: a ReadRanges stream was cut, its client asked for no range",
		"rpc", "ReadRanges", "generator", name, "stream-idle", idle.String(), "setting", settingStreamIdle)
	err := connect.NewError(connect.CodeDeadlineExceeded, fmt.Errorf(
		"the stream asked for no range for %v and is cut: ask at least that often, or raise %s", idle, settingStreamIdle))
	err.Meta().Set(cosidCode, codeStreamIdle)
	return err
}

// ReadRanges answers a ReadRanges call on the HTTP listener, which needs HTTP/2
// (rpcPolicy refuses HTTP/1.1 first, naming the settings that give it).
func (i *idService) ReadRanges(ctx context.Context, stream *connect.BidiStream[cosidv1.ReadRangesRequest, cosidv1.ReadRangesResponse]) error {
	return i.readRanges(ctx, stream.Receive, watchedSend(ctx, stream.Send))
}

// watchedSend returns send, whose error is errStreamIdle once the stream's
// streamWriter (rpcPolicy's) found a write or flush past its deadline: connect-go
// drops the error of the flush that waited stream-idle for the client.
func watchedSend[M any](ctx context.Context, send func(*M) error) func(*M) error {
	sw, ok := ctx.Value(streamWriterKey{}).(*streamWriter)
	if !ok {
		return send
	}
	return func(m *M) error {
		err := send(m)
		if err == nil && sw.cut {
			err = errStreamIdle
		}
		return err
	}
}
