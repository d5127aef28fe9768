package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// The bounds of StreamRanges (issue 30 §3, §4; review finding N5): max-streams,
// stream-idle, the read-ahead a client that stops reading costs the store, and
// cosid_open_streams, on both listeners.

// streamWindow is the HTTP/2 flow-control window, of each stream and of the
// connection, of the clients of these tests (dialWindowed): a fixed window turns
// off grpc-go's growth of it (BDP estimation), so that what a server can push
// ahead of its client is known.
const streamWindow = 64 << 10

// countingStore counts the values its store reserves: what the ranges of a
// stream cost the store. While gate holds a channel, a reservation waits for it
// to close, first saying so on entered: a slow store.
type countingStore struct {
	store.RangeStore
	values, calls, largest atomic.Int64
	gate                   atomic.Pointer[chan struct{}]
	entered                chan struct{}
}

func (c *countingStore) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if g := c.gate.Load(); g != nil {
		select {
		case c.entered <- struct{}{}:
		default: // a reservation of the generator's own, ahead, entered first
		}
		<-*g
	}
	c.calls.Add(1)
	c.values.Add(size)
	for {
		l := c.largest.Load()
		if size <= l || c.largest.CompareAndSwap(l, size) {
			break
		}
	}
	return c.RangeStore.Reserve(ctx, key, size, initialOffset)
}

// streamsConfig is one segment generator on a memory store, whose reserves
// countingStore counts, and two whose ids come in no ranges.
const streamsConfig = `
cosid:
  namespace: test
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem, step: 10 }
    bill: { strategy: periodic-segment, store: mem, period: YEAR_MONTH_DAY, zone: UTC }
    odd: { strategy: segment, store: mem, stride: 2, residue: 1 }
`

// streamCutMsg begins the log line of Server.streamCut.
const streamCutMsg = "server: a stream was cut"

// logTap is a slog handler that passes each record whose message begins with
// prefix to records, dropping it when records is full.
type logTap struct {
	prefix  string
	records chan slog.Record
}

func (l *logTap) Enabled(context.Context, slog.Level) bool { return true }
func (l *logTap) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, l.prefix) {
		select {
		case l.records <- r.Clone():
		default:
		}
	}
	return nil
}
func (l *logTap) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logTap) WithGroup(string) slog.Handler      { return l }

// streamsServer returns a Server of streamsConfig with limits, the store its
// generator reserves from, and the records of its stream cuts.
func streamsServer(t testing.TB, limits Limits, opts ...Option) (*Server, *countingStore, chan slog.Record) {
	t.Helper()
	cs := &countingStore{RangeStore: memstore.New()}
	cfg, err := cosid.ParseConfig([]byte(streamsConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
		cosid.WithStoreWrapper(func(_, _ string, _ store.RangeStore) store.RangeStore { return cs }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	cuts := make(chan slog.Record, 16)
	opts = append([]Option{WithH2C(true), WithLimits(limits),
		WithLogger(slog.New(&logTap{prefix: streamCutMsg, records: cuts}))}, opts...)
	return mustNew(t, rt, opts...), cs, cuts
}

// dialWindowed is dialGRPC with a fixed window of streamWindow bytes.
func dialWindowed(t testing.TB, base string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(streamWindow))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// openRead opens a StreamRanges call of size ranges, at most most of them (0: no
// end), and reads its first range: once it has, the server counts the stream open.
func openRead(ctx context.Context, conn *grpc.ClientConn, size, most int64) (grpc.ClientStream, error) {
	st, err := streamRanges(ctx, conn, &cosidv1.StreamRangesRequest{Name: "order", Size: size, MaxRanges: most})
	if err != nil {
		return nil, err
	}
	if err := st.RecvMsg(new(cosidv1.StreamRangesResponse)); err != nil {
		return st, err
	}
	return st, nil
}

// drain reads st to its end and returns the ranges it read and the error it ended
// with, nil for a clean end.
func drain(st grpc.ClientStream) (int, error) {
	n := 0
	var m cosidv1.StreamRangesResponse
	for {
		err := st.RecvMsg(&m)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// checkTooManyStreams checks that err is the refusal of a stream past max-streams.
func checkTooManyStreams(t *testing.T, st grpc.ClientStream, err error) {
	t.Helper()
	if code := status.Code(err); code != codes.ResourceExhausted || !strings.Contains(err.Error(), settingMaxStreams) {
		t.Fatalf("a stream past max-streams: %v (%v); want ResourceExhausted naming %s", err, code, settingMaxStreams)
	}
	if st != nil {
		if got := st.Trailer().Get(cosidCode); len(got) != 1 || got[0] != codeTooManyStreams {
			t.Errorf("trailer %s = %q, want %q", cosidCode, got, codeTooManyStreams)
		}
	}
}

// TestStreamRanges_MaxStreams_RefusesPastCapAndFreesSlot checks, on both
// listeners, that with max-streams 3 open a 4th StreamRanges is refused with
// resource_exhausted naming cosid.serve.limits.max-streams (a gRPC client and a
// Connect one), and that a stream's end frees its slot for the next.
func TestStreamRanges_MaxStreams_RefusesPastCapAndFreesSlot(t *testing.T) {
	// ahead is more ranges than a client's window and the server's buffers hold,
	// so that a stream of ahead ranges stays open until its client reads them.
	const ahead = 100_000
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, _ := streamsServer(t, Limits{MaxStreams: 3, StreamIdle: time.Minute})
			base := l.serve(t, s)
			conn := dialWindowed(t, base)
			ctx := t.Context()
			for i := range 2 {
				if _, err := openRead(ctx, conn, 1, 0); err != nil {
					t.Fatalf("stream %d of 3: %v", i+1, err)
				}
			}
			third, err := openRead(ctx, conn, 1, ahead)
			if err != nil {
				t.Fatalf("stream 3 of 3: %v", err)
			}
			fourth, err := openRead(ctx, conn, 1, 0)
			checkTooManyStreams(t, fourth, err)
			if l.name == "http" {
				// A Connect client on the same listener is refused alike.
				c := cosidv1connect.NewIdServiceClient(http.DefaultClient, base)
				cs, err := c.StreamRanges(ctx, connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "order", Size: 1}))
				if err != nil {
					t.Fatal(err)
				}
				if cs.Receive() {
					t.Fatal("a Connect stream past max-streams got a range")
				}
				if code := connect.CodeOf(cs.Err()); code != connect.CodeResourceExhausted ||
					!strings.Contains(cs.Err().Error(), settingMaxStreams) || cs.ResponseTrailer().Get(cosidCode) != codeTooManyStreams {
					t.Fatalf("a Connect stream past max-streams: %v (%v, %s %q); want resource_exhausted naming %s",
						cs.Err(), code, cosidCode, cs.ResponseTrailer().Get(cosidCode), settingMaxStreams)
				}
				cs.Close()
			}
			// The third stream ends once its client has read it all: its handler
			// has then returned, its slot free, before the client reads the end.
			if n, err := drain(third); err != nil || n != ahead-1 {
				t.Fatalf("stream 3: %d more ranges, then %v; want %d, then its end", n, err, ahead-1)
			}
			if _, err := openRead(ctx, conn, 1, 0); err != nil {
				t.Fatalf("a stream after one ended: %v, want the freed slot", err)
			}
			fifth, err := openRead(ctx, conn, 1, 0)
			checkTooManyStreams(t, fifth, err)
		})
	}
}

// TestStreamRanges_OpenStreamsMetric_UpAndDown checks, on both listeners, that
// cosid_open_streams counts the streams open and comes back down as they end.
func TestStreamRanges_OpenStreamsMetric_UpAndDown(t *testing.T) {
	const ahead = 100_000 // as in TestStreamRanges_MaxStreams_RefusesPastCapAndFreesSlot
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, _ := streamsServer(t, Limits{StreamIdle: time.Minute}, withNewMetrics(t))
			conn := dialWindowed(t, l.serve(t, s))
			checkMetrics(t, s, []string{"cosid_open_streams 0"})
			var open []grpc.ClientStream
			for range 2 {
				st, err := openRead(t.Context(), conn, 1, ahead)
				if err != nil {
					t.Fatal(err)
				}
				open = append(open, st)
			}
			checkMetrics(t, s, []string{"cosid_open_streams 2"})
			if _, err := drain(open[0]); err != nil {
				t.Fatal(err)
			}
			checkMetrics(t, s, []string{"cosid_open_streams 1"})
			if _, err := drain(open[1]); err != nil {
				t.Fatal(err)
			}
			checkMetrics(t, s, []string{"cosid_open_streams 0"})
		})
	}
}

// cutWait is how long holdUntilCut waits for a cut before it fails: a failure's
// bound, far above the stream-idle of the tests.
const cutWait = 30 * time.Second

// holdUntilCut opens a stream of size ranges on conn, reads k of them, then reads
// nothing until the server has cut the stream (its log line on cuts), and returns
// the log record, the ranges the client then still reads, and the error the
// stream ends with.
func holdUntilCut(t *testing.T, conn *grpc.ClientConn, cuts chan slog.Record, size int64, k int) (slog.Record, grpc.ClientStream, int, error) {
	t.Helper()
	st, err := streamRanges(t.Context(), conn, &cosidv1.StreamRangesRequest{Name: "order", Size: size})
	if err != nil {
		t.Fatal(err)
	}
	for i := range k {
		if err := st.RecvMsg(new(cosidv1.StreamRangesResponse)); err != nil {
			t.Fatalf("range %d of %d: %v", i+1, k, err)
		}
	}
	var cut slog.Record
	select {
	case cut = <-cuts:
	case <-time.After(cutWait):
		t.Fatalf("the stream was not cut within %v", cutWait)
	}
	n, err := drain(st)
	return cut, st, n, err
}

// TestStreamRanges_StreamIdle_CutsUnreadStream checks, on both listeners, that a
// stream whose client stops reading is cut after stream-idle: the server logs it
// naming cosid.serve.limits.stream-idle, and the client, reading again, gets the
// ranges its transport holds and then the stream's end with an error: on grpc-go's
// listener deadline_exceeded naming the setting (cosid-code stream_idle); on the
// HTTP listener net/http resets the stream at its write deadline, which the
// client reads as internal, and only the log names the setting.
func TestStreamRanges_StreamIdle_CutsUnreadStream(t *testing.T) {
	const idle = 200 * time.Millisecond
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, cuts := streamsServer(t, Limits{StreamIdle: idle})
			conn := dialWindowed(t, l.serve(t, s))
			cut, st, n, err := holdUntilCut(t, conn, cuts, 1, 3)
			attrs := map[string]string{}
			cut.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
			if cut.Level != slog.LevelWarn || attrs["setting"] != settingStreamIdle || attrs["stream-idle"] != idle.String() || attrs["generator"] != "order" {
				t.Errorf("log of the cut: %s %q %v; want WARN naming %s, %v and the generator", cut.Level, cut.Message, attrs, settingStreamIdle, idle)
			}
			if n == 0 {
				t.Error("the client read no range after it stopped: want those its transport held")
			}
			switch l.name {
			case "grpc-go":
				if code := status.Code(err); code != codes.DeadlineExceeded || !strings.Contains(err.Error(), settingStreamIdle) {
					t.Fatalf("after %d ranges: %v; want DeadlineExceeded naming %s", n, err, settingStreamIdle)
				}
				if got := st.Trailer().Get(cosidCode); len(got) != 1 || got[0] != codeStreamIdle {
					t.Errorf("trailer %s = %q, want %q", cosidCode, got, codeStreamIdle)
				}
			case "http":
				if code := status.Code(err); code != codes.Internal {
					t.Fatalf("after %d ranges: %v; want the reset of the stream (Internal)", n, err)
				}
			}
		})
	}
}

// TestStreamRanges_ReadAhead_BoundedByTheClientsWindow checks, on both listeners,
// what a client that reads k ranges and then stops costs the store: at most the k
// ranges, those the transport holds for it (its HTTP/2 window, and the server's
// write buffer: 64 KiB on grpc-go, less on net/http), and one reservation of the
// segment ahead. The server reserves a range only once the transport took the one
// before; a server that ran ahead (a prefetch of ranges) fails this.
func TestStreamRanges_ReadAhead_BoundedByTheClientsWindow(t *testing.T) {
	const size, k = 1000, 5
	// The smallest message: 5 bytes of gRPC framing and the two smallest varints.
	minMsg := 5 + proto.Size(&cosidv1.StreamRangesResponse{Start: 1, End: 2})
	const serverBuffer = 64<<10 + 16<<10 // grpc-go's write quota of a stream and a frame, or net/http's buffers
	held := (streamWindow + serverBuffer) / minMsg
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, cs, cuts := streamsServer(t, Limits{StreamIdle: 200 * time.Millisecond})
			conn := dialWindowed(t, l.serve(t, s))
			_, _, n, _ := holdUntilCut(t, conn, cuts, size, k)
			// After the cut nothing more is reserved: the blocked send fails, and
			// the stream's loop ends.
			reserved, most := cs.values.Load(), cs.largest.Load()
			bound := int64(k+held)*size + 2*most
			t.Logf("%d ranges read, %d more held by the transport; the store reserved %d ids in %d calls (%.1f ranges a range read), bound %d",
				k, n, reserved, cs.calls.Load(), float64(reserved)/float64(k*size), bound)
			if reserved > bound {
				t.Fatalf("a client that read %d ranges of %d cost the store %d ids, want at most %d: (%d + %d held by the window) ranges and two reservations of %d",
					k, size, reserved, bound, k, held, most)
			}
			if delivered := int64(k+n) * size; reserved < delivered {
				t.Fatalf("the store reserved %d ids, fewer than the %d delivered", reserved, delivered)
			}
		})
	}
}

// heldStreams opens n StreamRanges calls of one id a range over conns connections
// to base, reads one range of each and holds it unread, as the review's "-mode
// hold" did (N5). It returns the streams opened and the errors of those refused.
func heldStreams(ctx context.Context, t testing.TB, base string, n, conns int) (open int, refused []error) {
	t.Helper()
	cc := make([]*grpc.ClientConn, conns)
	for i := range cc {
		cc[i] = dialWindowed(t, base)
	}
	for i := range n {
		if _, err := openRead(ctx, cc[i%conns], 1, 0); err != nil {
			refused = append(refused, err)
			continue
		}
		open++
	}
	return open, refused
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestStreamRanges_HeldStreams_RefusedPastCapHeapBounded is the review's N5
// reproduction scaled down (2,000 held streams over 8 connections cost 130 MB):
// 200 held streams over 8 connections to a server of max-streams 50 open 50,
// refuse the other 150 with resource_exhausted, and the heap grows by no more
// than 50 streams' worth (server and client in this process together). A held
// stream costs most on grpc-go's listener: the server queues a message of a range
// a frame of its own, 64 KiB of them (its write quota of a stream), about 0.9 MB
// in all; on net/http's, about 0.2 MB.
func TestStreamRanges_HeldStreams_RefusedPastCapHeapBounded(t *testing.T) {
	const attempts, conns, most = 200, 8, 50
	const perStream = 2 << 20 // a generous bound for both ends of a held stream
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, _ := streamsServer(t, Limits{MaxStreams: most, StreamIdle: time.Minute})
			base := l.serve(t, s)
			before := heapInUse()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			open, refused := heldStreams(ctx, t, base, attempts, conns)
			grown := int64(heapInUse()) - int64(before)
			t.Logf("%d held, %d refused; heap %+d bytes, %d a held stream", open, len(refused), grown, grown/int64(max(open, 1)))
			if open != most || len(refused) != attempts-most {
				t.Fatalf("%d streams opened and %d refused, want %d and %d", open, len(refused), most, attempts-most)
			}
			for _, err := range refused {
				checkTooManyStreams(t, nil, err)
			}
			if grown > most*perStream {
				t.Fatalf("the heap grew by %d bytes for %d held streams, want at most %d", grown, most, most*perStream)
			}
			if got := s.streams.Load(); got != most {
				t.Fatalf("the server counts %d open streams, want %d", got, most)
			}
		})
	}
}

// TestReadRanges_SlowStore_WaitedForNotCut checks, on both listeners, that a
// stream whose reservation waits for its store longer than stream-idle goes on
// once the store answers: the deadline of the send before does not run while
// nothing is sent (net/http resets an HTTP/2 stream whose deadline passes, written
// to or not). StreamRanges' sends go through the same streamWriter.
func TestReadRanges_SlowStore_WaitedForNotCut(t *testing.T) {
	const idle = 100 * time.Millisecond
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, cs, _ := streamsServer(t, Limits{StreamIdle: idle})
			conn := dialGRPC(t, l.serve(t, s))
			// Ranges of 1,000 ids, over the generator's step of 10: each takes a
			// reservation of its own.
			st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1000, Want: 1})
			recvRanges(t, st, 1)
			gate := make(chan struct{})
			cs.entered = make(chan struct{}, 1)
			cs.gate.Store(&gate)
			if err := st.Send(&cosidv1.ReadRangesRequest{Want: 1}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-cs.entered:
			case <-time.After(cutWait):
				t.Fatal("the stream did not reserve its second range")
			}
			// The store answers after three times stream-idle: the slowness is
			// the test's condition, not a wait for the server.
			var once sync.Once
			open := func() { once.Do(func() { cs.gate.Store(nil); close(gate) }) }
			time.AfterFunc(3*idle, open)
			t.Cleanup(open) // a test that failed first leaves no reservation waiting
			if _, err := st.Recv(); err != nil {
				t.Fatalf("the range after a store slower than stream-idle: %v; want it", err)
			}
		})
	}
}
