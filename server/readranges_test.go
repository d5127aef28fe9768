package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// ReadRanges: a stream of ranges whose client asks for each (issue 30 §3, "reserves
// only as far ahead as the client reads"), on both listeners.

// readRangesCall is a ReadRanges call of a grpc-go client.
type readRangesCall = grpc.BidiStreamingClient[cosidv1.ReadRangesRequest, cosidv1.ReadRangesResponse]

// openReadRanges opens a ReadRanges call on conn and sends its first message. A
// call the server has already ended (io.EOF) is returned: its Recv gives why.
func openReadRanges(t *testing.T, ctx context.Context, conn *grpc.ClientConn, first *cosidv1.ReadRangesRequest) readRangesCall {
	t.Helper()
	st, err := cosidv1.NewIdServiceClient(conn).ReadRanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(first); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return st
}

// readAll makes a ReadRanges call of c that sends first, closes its side and
// reads the ranges asked to the end: nil for a clean end, else the call's error.
func readAll(ctx context.Context, c cosidv1.IdServiceClient, first *cosidv1.ReadRangesRequest) error {
	st, err := c.ReadRanges(ctx)
	if err == nil {
		err = st.Send(first)
	}
	if err == nil {
		err = st.CloseSend()
	}
	if errors.Is(err, io.EOF) {
		err = nil // the server ended the call: its status is Recv's
	}
	for err == nil {
		_, err = st.Recv()
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// recvRanges reads n ranges of st, failing t on an error.
func recvRanges(t *testing.T, st readRangesCall, n int) []*cosidv1.ReadRangesResponse {
	t.Helper()
	out := make([]*cosidv1.ReadRangesResponse, 0, n)
	for range n {
		m, err := st.Recv()
		if err != nil {
			t.Fatalf("range %d of %d: %v", len(out)+1, n, err)
		}
		out = append(out, m)
	}
	return out
}

// nextStart is the start of the next range of one id of order, taken over conn:
// where every range reserved before it ends.
func nextStart(t *testing.T, conn *grpc.ClientConn) int64 {
	t.Helper()
	r, err := cosidv1.NewIdServiceClient(conn).NextRange(t.Context(), &cosidv1.NextRangeRequest{Name: "order", Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r.GetStart()
}

// TestReadRanges_ReadAhead_OnlyWhatTheClientAsked checks, on both listeners and
// with grpc-go's growing window (up to 16 MiB), that a client that asked for k
// ranges, read them and asks nothing more has cost the generator exactly those k:
// the next range of the generator starts where the k-th ends. StreamRanges, on the
// same window, costs thousands (TestStreamRanges_ReadAhead_BoundedByTheClientsWindow).
// Asked for 3 more, it costs 3 more.
func TestReadRanges_ReadAhead_OnlyWhatTheClientAsked(t *testing.T) {
	const size, k = 1000, 5
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, _ := streamsServer(t, Limits{StreamIdle: time.Minute})
			conn := dialGRPC(t, l.serve(t, s))
			base := nextStart(t, conn) + 1
			st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: size, Want: k})
			got := recvRanges(t, st, k)
			for i, m := range got {
				if want := base + int64(i)*size; m.GetStart() != want || m.GetEnd() != want+size {
					t.Fatalf("range %d: [%d, %d), want [%d, %d)", i, m.GetStart(), m.GetEnd(), want, want+size)
				}
			}
			if next := nextStart(t, conn); next != base+k*size {
				t.Fatalf("after %d ranges of %d asked and read, the next range starts at %d, want %d: the stream reserved %d ranges it was not asked for",
					k, size, next, base+k*size, (next-base-k*size)/size)
			}
			if err := st.Send(&cosidv1.ReadRangesRequest{Want: 3}); err != nil {
				t.Fatal(err)
			}
			more := recvRanges(t, st, 3)
			if want := base + k*size + 1; more[0].GetStart() != want {
				t.Fatalf("the first range asked later starts at %d, want %d", more[0].GetStart(), want)
			}
			if next, want := nextStart(t, conn), more[2].GetEnd(); next != want {
				t.Fatalf("after 3 more asked, the next range starts at %d, want %d", next, want)
			}
		})
	}
}

// TestReadRanges_CloseSend_SendsWhatWasAskedThenEnds checks that a client that asks
// for n ranges and closes its side reads exactly n, then the stream's clean end;
// and that one that closes with nothing asked ends at once.
func TestReadRanges_CloseSend_SendsWhatWasAskedThenEnds(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, _ := streamsServer(t, Limits{StreamIdle: time.Minute})
			conn := dialGRPC(t, l.serve(t, s))
			for _, n := range []int64{7, 0} {
				st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 10, Want: n})
				if err := st.CloseSend(); err != nil {
					t.Fatal(err)
				}
				got := 0
				for {
					_, err := st.Recv()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("after %d ranges: %v", got, err)
					}
					got++
				}
				if got != int(n) {
					t.Fatalf("asked for %d and closed: read %d ranges, then the end", n, got)
				}
			}
		})
	}
}

// TestReadRanges_BadInput_Refused checks each refusal of a ReadRanges call, on both
// listeners: invalid_argument with a message that says what to send, or the
// refusal of a generator as NextRange refuses it.
func TestReadRanges_BadInput_Refused(t *testing.T) {
	tests := []struct {
		name     string
		msgs     []*cosidv1.ReadRangesRequest
		closed   bool // the client closes its side after msgs
		code     codes.Code
		contains string
	}{
		{"closed before its first message", nil, true, codes.InvalidArgument, "before its first message"},
		{"no name", []*cosidv1.ReadRangesRequest{{Size: 1, Want: 1}}, false, codes.NotFound, "configured: bill, odd, order"},
		{"a periodic generator", []*cosidv1.ReadRangesRequest{{Name: "bill", Size: 1, Want: 1}}, false, codes.InvalidArgument, "whose ids come one at a time, not in ranges"},
		{"a strided generator", []*cosidv1.ReadRangesRequest{{Name: "odd", Size: 1, Want: 1}}, false, codes.InvalidArgument, "has stride 2 (residue 1)"},
		{"unknown generator", []*cosidv1.ReadRangesRequest{{Name: "nope", Size: 1, Want: 1}}, false, codes.NotFound, `"nope"`},
		{"key of a plain generator", []*cosidv1.ReadRangesRequest{{Name: "order", Key: "k", Size: 1, Want: 1}}, false, codes.InvalidArgument, "is not keyed"},
		{"size 0", []*cosidv1.ReadRangesRequest{{Name: "order", Want: 1}}, false, codes.InvalidArgument, "size 0: want the ids of a range, from 1 to 1048576"},
		{"size over the cap", []*cosidv1.ReadRangesRequest{{Name: "order", Size: MaxStreamRange + 1, Want: 1}}, false, codes.InvalidArgument, "from 1 to 1048576"},
		{"want negative", []*cosidv1.ReadRangesRequest{{Name: "order", Size: 1, Want: -1}}, false, codes.InvalidArgument, "want -1 in the first message: want 0 to 1024"},
		{"want over the cap", []*cosidv1.ReadRangesRequest{{Name: "order", Size: 1, Want: MaxReadAhead + 1}}, false, codes.InvalidArgument, "want 0 to 1024 ranges ahead (MaxReadAhead)"},
		{"a later message names the generator", []*cosidv1.ReadRangesRequest{{Name: "order", Size: 1}, {Name: "order", Want: 1}}, false, codes.InvalidArgument,
			"message 2 of ReadRanges sets name, key or size: only the first message does"},
		{"a later message sets the size", []*cosidv1.ReadRangesRequest{{Name: "order", Size: 1}, {Size: 2, Want: 1}}, false, codes.InvalidArgument, "message 2 of ReadRanges sets name, key or size"},
		{"a later message asks for nothing", []*cosidv1.ReadRangesRequest{{Name: "order", Size: 1}, {Want: 1}, {}}, false, codes.InvalidArgument,
			"want 0 in message 3 of ReadRanges: a message after the first asks for at least 1 range"},
		{"asked past the read-ahead", []*cosidv1.ReadRangesRequest{{Name: "order", Size: 1}, {Want: MaxReadAhead}, {Want: MaxReadAhead}}, false, codes.InvalidArgument,
			"at most 1024 may be (MaxReadAhead); ask for more as ranges arrive"},
	}
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			// No idle cut in the test's time: a stream refused late would
			// otherwise end as cut.
			s, _, _ := streamsServer(t, Limits{StreamIdle: time.Hour})
			conn := dialWindowed(t, l.serve(t, s))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					st, err := cosidv1.NewIdServiceClient(conn).ReadRanges(t.Context())
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range tt.msgs {
						if err := st.Send(m); err != nil && !errors.Is(err, io.EOF) {
							t.Fatal(err)
						}
					}
					if tt.closed {
						if err := st.CloseSend(); err != nil {
							t.Fatal(err)
						}
					}
					// The refusal comes after any range the stream sent.
					for err = nil; err == nil; _, err = st.Recv() {
					}
					if status.Code(err) != tt.code || !strings.Contains(err.Error(), tt.contains) {
						t.Fatalf("err = %v; want %v containing %q", err, tt.code, tt.contains)
					}
				})
			}
		})
	}
}

// TestReadRanges_AskIdle_CutsStreamThatAsksNothing checks, on both listeners, that
// a stream whose client has read what it asked for and asks nothing more for
// stream-idle is cut, freeing its slot of max-streams: the client gets
// deadline_exceeded naming cosid.serve.limits.stream-idle (cosid-code stream_idle),
// and the server logs it.
func TestReadRanges_AskIdle_CutsStreamThatAsksNothing(t *testing.T) {
	const idle = 200 * time.Millisecond
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			cuts := make(chan slog.Record, 4)
			s, _, _ := streamsServer(t, Limits{StreamIdle: idle, MaxStreams: 1},
				WithLogger(slog.New(&logTap{prefix: "server: a ReadRanges stream was cut", records: cuts})))
			conn := dialGRPC(t, l.serve(t, s))
			st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 2})
			recvRanges(t, st, 2)
			_, err := st.Recv() // waits for the cut
			if code := status.Code(err); code != codes.DeadlineExceeded || !strings.Contains(err.Error(), "asked for no range for 200ms") ||
				!strings.Contains(err.Error(), settingStreamIdle) {
				t.Fatalf("a stream that asks nothing: %v; want DeadlineExceeded naming %s", err, settingStreamIdle)
			}
			if got := st.Trailer().Get(cosidCode); len(got) != 1 || got[0] != codeStreamIdle {
				t.Errorf("trailer %s = %q, want %q", cosidCode, got, codeStreamIdle)
			}
			select {
			case r := <-cuts:
				if r.Level != slog.LevelWarn {
					t.Errorf("the cut is logged at %v, want WARN", r.Level)
				}
			case <-time.After(cutWait):
				t.Fatal("the cut was not logged")
			}
			// Its slot is free: the only one, with max-streams 1.
			next := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 1})
			recvRanges(t, next, 1)
		})
	}
}

// tinyWindowClient is an HTTP/2 client (h2c) that grants each stream a window of
// 1 KiB, of which a stream's read-ahead fills the window at once: grpc-go's client
// grants at least 64 KiB.
func tinyWindowClient(t *testing.T) *http.Client {
	t.Helper()
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: p, HTTP2: &http.HTTP2Config{MaxReceiveBufferPerStream: 1 << 10, MaxReceiveBufferPerConnection: 64 << 10},
		DialContext: (&net.Dialer{}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestReadRanges_StreamIdle_CutsUnreadStream checks, on both listeners, that a
// client that asks for ranges and stops reading them is cut after stream-idle,
// and the server logs the cut naming the setting. On the HTTP listener its window
// of 1 KiB fills, the server's next send waits, and the stream is cut as an
// unread StreamRanges is. grpc-go's listener buffers 64 KiB a stream whatever the
// client's window, more than the most a client may ask ahead (MaxReadAhead ranges
// of about 12 bytes): every send returns, nothing is left to send, and the stream
// is cut for asking nothing.
func TestReadRanges_StreamIdle_CutsUnreadStream(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			cuts := make(chan slog.Record, 4)
			s, _, _ := streamsServer(t, Limits{StreamIdle: 200 * time.Millisecond},
				WithLogger(slog.New(&logTap{prefix: "server: a ", records: cuts})))
			c := cosidv1connect.NewIdServiceClient(tinyWindowClient(t), l.serve(t, s), connect.WithGRPC())
			st := c.ReadRanges(t.Context())
			if err := st.Send(&cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: MaxReadAhead}); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Receive(); err != nil {
				t.Fatal(err)
			}
			var cut slog.Record
			select {
			case cut = <-cuts:
			case <-time.After(cutWait):
				t.Fatalf("a stream of %d ranges asked, unread on a window of 1 KiB, was not cut within %v", MaxReadAhead, cutWait)
			}
			want := map[string]string{"http": "server: a stream was cut, its client did not read it",
				"grpc-go": "server: a ReadRanges stream was cut, its client asked for no range"}[l.name]
			attrs := map[string]string{}
			cut.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
			if cut.Message != want || attrs["rpc"] != "ReadRanges" || attrs["generator"] != "order" || attrs["setting"] != settingStreamIdle {
				t.Fatalf("log of the cut: %q %v; want %q with the rpc, the generator and %s", cut.Message, attrs, want, settingStreamIdle)
			}
			_ = st.CloseRequest()
			_ = st.CloseResponse()
		})
	}
}

// TestReadRanges_HTTP1_RefusedNamingHowToGetHTTP2 checks that a ReadRanges call
// over HTTP/1.1, which cannot stream both ways, is refused in the Connect protocol
// naming the settings that give HTTP/2 (connect-go alone answers a bare 505).
func TestReadRanges_HTTP1_RefusedNamingHowToGetHTTP2(t *testing.T) {
	base := serveRPC(t, newServer(t, nil))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+cosidv1connect.IdServiceReadRangesProcedure, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/connect+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`"code":"unimplemented"`, "needs HTTP/2", "HTTP/1.1", settingH2C, settingGRPCAddr} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("ReadRanges over HTTP/1.1: %d %s; want %q in it", resp.StatusCode, body, want)
		}
	}
}

// TestReadRanges_LongStream_NotCutByBodyLimit checks that a stream whose asks add
// up to more than the body limit goes on: the limit bounds each message of a
// client stream, not its body, which lasts as long as the call. A message over
// the limit is still refused.
func TestReadRanges_LongStream_NotCutByBodyLimit(t *testing.T) {
	const limit = 1 << 10
	s, _, _ := streamsServer(t, Limits{StreamIdle: time.Minute}, WithBodyLimit(limit))
	conn := dialGRPC(t, serveRPC(t, s))
	st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 1})
	recvRanges(t, st, 1)
	// Each ask is 7 bytes with its framing: 300 of them pass the limit twice.
	for range 300 {
		if err := st.Send(&cosidv1.ReadRangesRequest{Want: 1}); err != nil {
			t.Fatal(err)
		}
		recvRanges(t, st, 1)
	}
	big := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 1, Key: strings.Repeat("k", limit)})
	if _, err := big.Recv(); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a message over the body limit: %v, want ResourceExhausted", err)
	}
}

// TestReadRanges_MaxStreams_SharedWithStreamRanges checks that ReadRanges and
// StreamRanges calls count against one max-streams.
func TestReadRanges_MaxStreams_SharedWithStreamRanges(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _, _ := streamsServer(t, Limits{MaxStreams: 1, StreamIdle: time.Minute})
			conn := dialGRPC(t, l.serve(t, s))
			const ahead = 100_000 // more than the transports hold: the call stays open until read
			held, err := openRead(t.Context(), conn, 1, ahead)
			if err != nil {
				t.Fatal(err)
			}
			st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 1})
			_, err = st.Recv()
			checkTooManyStreams(t, nil, err)
			// The StreamRanges call ends once its client has read it all: its
			// handler has then returned, its slot free, before the client reads
			// the end.
			if n, err := drain(held); err != nil || n != ahead-1 {
				t.Fatalf("the StreamRanges call: %d more ranges, then %v; want %d, then its end", n, err, ahead-1)
			}
			st = openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 1})
			recvRanges(t, st, 1)
		})
	}
}
