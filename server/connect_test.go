package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// serveRPC serves s over HTTPServer on a loopback port until t ends and returns its
// base URL.
func serveRPC(t testing.TB, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer(ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	t.Cleanup(func() {
		hs.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// bearerToken is a client option that sends token as the bearer token.
func bearerToken(token string) connect.ClientOption {
	return connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+token)
			return next(ctx, req)
		}
	}))
}

// TestConnect_Next_EveryProtocol checks that the ids of Next come over Connect's
// binary and JSON protocol and gRPC-Web on HTTP/1.1, one after the other.
func TestConnect_Next_EveryProtocol(t *testing.T) {
	base := serveRPC(t, newServer(t, nil))
	protocols := map[string][]connect.ClientOption{
		"connect":      nil,
		"connect-json": {connect.WithProtoJSON()},
		"grpc-web":     {connect.WithGRPCWeb()},
	}
	var last int64
	for _, name := range []string{"connect", "connect-json", "grpc-web"} {
		t.Run(name, func(t *testing.T) {
			c := cosidv1connect.NewIdServiceClient(http.DefaultClient, base, protocols[name]...)
			res, err := c.Next(t.Context(), connect.NewRequest(&cosidv1.NextRequest{Name: "order", Count: 3}))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Msg.Ids) != 3 {
				t.Fatalf("ids = %q, want 3", res.Msg.Ids)
			}
			for _, id := range res.Msg.Ids {
				var v int64
				if err := json.Unmarshal([]byte(id), &v); err != nil || v <= last {
					t.Fatalf("id %q after %d: want a larger decimal", id, last)
				}
				last = v
			}
		})
	}
}

// TestConnect_Next_CodecText checks that Next answers the ids in their codec's
// text, as /next does.
func TestConnect_Next_CodecText(t *testing.T) {
	c := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, newServer(t, nil)))
	res, err := c.Next(t.Context(), connect.NewRequest(&cosidv1.NextRequest{Name: "code"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Msg.Ids) != 1 || !strings.HasPrefix(res.Msg.Ids[0], "C-") || len(res.Msg.Ids[0]) != 8 {
		t.Fatalf("ids = %q, want one C-000001-like id", res.Msg.Ids)
	}
}

// TestConnect_Curl_NextJSON sends Next with the real curl, as a shell script of any
// language would: a POST of a JSON body.
func TestConnect_Curl_NextJSON(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed: apt-get install curl")
	}
	base := serveRPC(t, newServer(t, nil, WithRoleToken(RoleIDs, "ids-secret")))
	run := func(token, body string) (string, string) {
		out, err := exec.CommandContext(t.Context(), curl, "-sS", "-w", "\n%{http_code}", "-X", "POST",
			"-H", "Content-Type: application/json", "-H", "Authorization: Bearer "+token,
			"--data", body, base+"/cosid.v1.IdService/Next").Output()
		if err != nil {
			t.Fatalf("curl: %v", err)
		}
		body, code, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return code, body
	}
	code, body := run("ids-secret", `{"name":"order","count":2}`)
	var got struct{ Ids []string }
	if err := json.Unmarshal([]byte(body), &got); code != "200" || err != nil || len(got.Ids) != 2 {
		t.Fatalf("curl: %s %s, want 200 and two ids", code, body)
	}
	code, body = run("wrong", `{"name":"order"}`)
	if code != "401" || !strings.Contains(body, `"code":"unauthenticated"`) {
		t.Fatalf("curl with a wrong token: %s %s, want 401 unauthenticated", code, body)
	}
	code, body = run("ids-secret", `{"name":"order","count":"many"}`)
	if code != "400" || !strings.Contains(body, `"code":"invalid_argument"`) {
		t.Fatalf("curl with a bad count: %s %s, want 400 invalid_argument", code, body)
	}
}

// TestConnect_BadInput_Refused checks each refusal of the services: its code, the
// API's error code in the cosid-code metadata, and a message that says what to send.
func TestConnect_BadInput_Refused(t *testing.T) {
	base := serveRPC(t, newServer(t, nil, WithLimits(Limits{MaxReserve: 100, MaxLeaseTTL: time.Minute})))
	ids := cosidv1connect.NewIdServiceClient(http.DefaultClient, base)
	st := cosidv1connect.NewStoreServiceClient(http.DefaultClient, base)
	ctx := t.Context()
	first := func(_ *connect.ServerStreamForClient[cosidv1.StreamRangesResponse], err error) error { return err }
	stream := func(m *cosidv1.StreamRangesRequest) error {
		s, err := ids.StreamRanges(ctx, connect.NewRequest(m))
		if err != nil {
			return first(s, err)
		}
		defer s.Close()
		for s.Receive() {
		}
		return s.Err()
	}
	unary := func(_ any, err error) error { return err }
	tests := []struct {
		name     string
		call     func() error
		code     connect.Code
		cosid    string
		contains string
	}{
		{"next count negative", func() error {
			return unary(ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "order", Count: -1})))
		}, connect.CodeInvalidArgument, "invalid_argument", "from 1 to 10000"},
		{"next count over MaxCount", func() error {
			return unary(ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "order", Count: MaxCount + 1})))
		}, connect.CodeInvalidArgument, "invalid_argument", "from 1 to 10000"},
		{"next unknown generator", func() error {
			return unary(ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "nope"})))
		}, connect.CodeNotFound, "unknown_generator", "configured: bill, code, event, order"},
		{"next key of a plain generator", func() error {
			return unary(ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "order", Key: "tenant-1"})))
		}, connect.CodeInvalidArgument, "invalid_argument", `generator "order" is not keyed`},
		{"range of a snowflake", func() error {
			return unary(ids.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "event", Count: 2})))
		}, connect.CodeInvalidArgument, "invalid_argument", "whose ids come one at a time, not in ranges"},
		{"range key of a plain generator", func() error {
			return unary(ids.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "order", Key: "k"})))
		}, connect.CodeInvalidArgument, "invalid_argument", "is not keyed"},
		{"stream size 0", func() error {
			return stream(&cosidv1.StreamRangesRequest{Name: "order"})
		}, connect.CodeInvalidArgument, "invalid_argument", "from 1 to 1048576"},
		{"stream size over the cap", func() error {
			return stream(&cosidv1.StreamRangesRequest{Name: "order", Size: MaxStreamRange + 1})
		}, connect.CodeInvalidArgument, "invalid_argument", "from 1 to 1048576"},
		{"stream max_ranges negative", func() error {
			return stream(&cosidv1.StreamRangesRequest{Name: "order", Size: 1, MaxRanges: -1})
		}, connect.CodeInvalidArgument, "invalid_argument", "max_ranges -1"},
		{"stream of a periodic generator", func() error {
			return stream(&cosidv1.StreamRangesRequest{Name: "bill", Size: 1, MaxRanges: 1})
		}, connect.CodeInvalidArgument, "invalid_argument", "not in ranges"},
		{"stream key of a plain generator", func() error {
			return stream(&cosidv1.StreamRangesRequest{Name: "order", Key: "k", Size: 1, MaxRanges: 1})
		}, connect.CodeInvalidArgument, "invalid_argument", "is not keyed"},
		{"decode a bad text", func() error {
			return unary(ids.Decode(ctx, connect.NewRequest(&cosidv1.DecodeRequest{Name: "code", Text: "X-1"})))
		}, connect.CodeInvalidArgument, "invalid_argument", `text "X-1"`},
		{"reserve over max-reserve", func() error {
			return unary(st.Reserve(ctx, connect.NewRequest(&cosidv1.ReserveRequest{Key: "k", Size: 101})))
		}, connect.CodeInvalidArgument, "invalid_argument", "raise cosid.serve.limits.max-reserve"},
		{"acquire ttl over max-lease-ttl", func() error {
			return unary(st.Acquire(ctx, connect.NewRequest(&cosidv1.AcquireRequest{Namespace: "n", OwnerKey: "o", Limit: 4,
				Ttl: durationpb.New(time.Hour)})))
		}, connect.CodeInvalidArgument, "invalid_argument", "raise cosid.serve.limits.max-lease-ttl"},
		{"acquire a 4.x owner key", func() error {
			return unary(st.Acquire(ctx, connect.NewRequest(&cosidv1.AcquireRequest{Namespace: "n", OwnerKey: OwnerKeyPrefix4x + "x",
				Limit: 4, Ttl: durationpb.New(time.Second)})))
		}, connect.CodeInvalidArgument, "invalid_argument", "reserved for the leases of the 4.x machine API"},
		{"acquire an invalid duration", func() error {
			return unary(st.Acquire(ctx, connect.NewRequest(&cosidv1.AcquireRequest{Namespace: "n", OwnerKey: "o", Limit: 4,
				Ttl: &durationpb.Duration{Seconds: 1, Nanos: -1}})))
		}, connect.CodeInvalidArgument, "invalid_argument", "ttl:"},
		{"renew without a lease", func() error {
			return unary(st.Renew(ctx, connect.NewRequest(&cosidv1.RenewRequest{Ttl: durationpb.New(time.Second)})))
		}, connect.CodeInvalidArgument, "invalid_argument", "lease is missing"},
		{"release without a lease", func() error {
			return unary(st.Release(ctx, connect.NewRequest(&cosidv1.ReleaseRequest{})))
		}, connect.CodeInvalidArgument, "invalid_argument", "lease is missing"},
		{"a message over the body limit", func() error {
			return unary(ids.Decode(ctx, connect.NewRequest(&cosidv1.DecodeRequest{Name: "code", Text: strings.Repeat("1", DefaultBodyLimit)})))
		}, connect.CodeResourceExhausted, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if connect.CodeOf(err) != tt.code {
				t.Fatalf("err = %v (%v), want %v", err, connect.CodeOf(err), tt.code)
			}
			var cerr *connect.Error
			errors.As(err, &cerr)
			if got := cerr.Meta().Get(cosidCode); got != tt.cosid {
				t.Errorf("cosid-code = %q, want %q", got, tt.cosid)
			}
			if got := detailCode(cerr); tt.cosid != "" && got != tt.cosid {
				t.Errorf("the ErrorInfo detail's code = %q, want %q as in the metadata", got, tt.cosid)
			}
			if !strings.Contains(cerr.Message(), tt.contains) {
				t.Errorf("message %q lacks %q", cerr.Message(), tt.contains)
			}
		})
	}
}

// detailCode is the code of cerr's cosid.v1.ErrorInfo detail, or "".
func detailCode(cerr *connect.Error) string {
	for _, d := range cerr.Details() {
		if v, err := d.Value(); err == nil {
			if info, ok := v.(*cosidv1.ErrorInfo); ok {
				return info.GetCode()
			}
		}
	}
	return ""
}

// TestConnect_UnknownGeneratorHasV1sCode: the body of a Connect error carries
// the code of /v1's body, which it gave only in the cosid-code metadata, so a
// client that reads bodies sees one code for one error on both APIs.
func TestConnect_UnknownGeneratorHasV1sCode(t *testing.T) {
	s := newServer(t, nil)
	_, _, v1 := do(t, s, "GET", "/v1/generators/nope/next", "")
	var body struct{ Code string }
	if err := json.Unmarshal([]byte(v1), &body); err != nil || body.Code != "unknown_generator" {
		t.Fatalf("/v1 body %s, want code unknown_generator", v1)
	}
	ids := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s))
	_, err := ids.Next(t.Context(), connect.NewRequest(&cosidv1.NextRequest{Name: "nope"}))
	var cerr *connect.Error
	if !errors.As(err, &cerr) || detailCode(cerr) != body.Code {
		t.Fatalf("Connect Next of an unknown generator: %v, details %v; want an ErrorInfo of code %s", err, cerr.Details(), body.Code)
	}
}

// TestConnect_Auth_RoleOfEachService checks that each service takes its role's
// token only: none, a wrong one and the other role's are refused with
// Unauthenticated, before any id or store call.
func TestConnect_Auth_RoleOfEachService(t *testing.T) {
	base := serveRPC(t, newServer(t, nil, WithRoleToken(RoleIDs, "ids-t"), WithRoleToken(RoleStore, "store-t")))
	callIDs := func(opts ...connect.ClientOption) error {
		_, err := cosidv1connect.NewIdServiceClient(http.DefaultClient, base, opts...).
			Next(t.Context(), connect.NewRequest(&cosidv1.NextRequest{Name: "order"}))
		return err
	}
	callStream := func(opts ...connect.ClientOption) error {
		s, err := cosidv1connect.NewIdServiceClient(http.DefaultClient, base, opts...).
			StreamRanges(t.Context(), connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "order", Size: 5, MaxRanges: 1}))
		if err != nil {
			return err
		}
		defer s.Close()
		for s.Receive() {
		}
		return s.Err()
	}
	callStore := func(opts ...connect.ClientOption) error {
		_, err := cosidv1connect.NewStoreServiceClient(http.DefaultClient, base, opts...).
			Reserve(t.Context(), connect.NewRequest(&cosidv1.ReserveRequest{Key: "auth", Size: 1}))
		return err
	}
	streamToken := func(token string) connect.ClientOption {
		return connect.WithInterceptors(streamHeader{"Bearer " + token})
	}
	tests := []struct {
		name  string
		call  func(...connect.ClientOption) error
		token func(string) connect.ClientOption
		right string
		other string
	}{
		{"IdService.Next", callIDs, bearerToken, "ids-t", "store-t"},
		{"IdService.StreamRanges", callStream, streamToken, "ids-t", "store-t"},
		{"StoreService.Reserve", callStore, bearerToken, "store-t", "ids-t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for what, opts := range map[string][]connect.ClientOption{
				"no token":         nil,
				"a wrong token":    {tt.token("wrong")},
				"the other role's": {tt.token(tt.other)},
			} {
				if err := tt.call(opts...); connect.CodeOf(err) != connect.CodeUnauthenticated {
					t.Errorf("%s: err = %v, want Unauthenticated", what, err)
				}
			}
			if err := tt.call(tt.token(tt.right)); err != nil {
				t.Errorf("the role's token: %v", err)
			}
		})
	}
}

// streamHeader sets the Authorization header of a streaming call.
type streamHeader struct{ auth string }

func (h streamHeader) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc { return next }
func (h streamHeader) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", h.auth)
		return conn
	}
}
func (h streamHeader) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// TestConnect_StoreService_ReserveSealLease checks the store API over Connect: a
// reserve, a seal that refuses the next reserve as /v1/store does, and a lease
// acquired, renewed and released.
func TestConnect_StoreService_ReserveSealLease(t *testing.T) {
	st := cosidv1connect.NewStoreServiceClient(http.DefaultClient, serveRPC(t, newServer(t, nil)))
	ctx := t.Context()
	res, err := st.Reserve(ctx, connect.NewRequest(&cosidv1.ReserveRequest{Key: "rk", Size: 10, InitialOffset: 100}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Msg.Start != 100 || res.Msg.End != 110 {
		t.Fatalf("reserve = [%d, %d), want [100, 110)", res.Msg.Start, res.Msg.End)
	}
	if _, err := st.Seal(ctx, connect.NewRequest(&cosidv1.SealRequest{Key: "rk"})); err != nil {
		t.Fatal(err)
	}
	_, err = st.Reserve(ctx, connect.NewRequest(&cosidv1.ReserveRequest{Key: "rk", Size: 10}))
	var cerr *connect.Error
	if !errors.As(err, &cerr) || cerr.Code() != connect.CodeFailedPrecondition || cerr.Meta().Get(cosidCode) != "sealed" {
		t.Fatalf("reserve of a sealed key: %v, want FailedPrecondition with cosid-code sealed", err)
	}

	acq, err := st.Acquire(ctx, connect.NewRequest(&cosidv1.AcquireRequest{Namespace: "ns", OwnerKey: "host-a", Limit: 4,
		Tolerance: durationpb.New(time.Second), Ttl: durationpb.New(30 * time.Second)}))
	if err != nil {
		t.Fatal(err)
	}
	lease := acq.Msg.Lease
	if lease.GetIncarnation() == "" || lease.GetExpiresAt() == nil {
		t.Fatalf("lease = %v, want an incarnation and an expiry", lease)
	}
	ren, err := st.Renew(ctx, connect.NewRequest(&cosidv1.RenewRequest{Lease: lease, Ttl: durationpb.New(time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	if !ren.Msg.Lease.GetExpiresAt().AsTime().After(lease.GetExpiresAt().AsTime()) {
		t.Errorf("renewed expiry %v, want after %v", ren.Msg.Lease.GetExpiresAt().AsTime(), lease.GetExpiresAt().AsTime())
	}
	if _, err := st.Release(ctx, connect.NewRequest(&cosidv1.ReleaseRequest{Lease: ren.Msg.Lease, LastUsedMs: 1})); err != nil {
		t.Fatal(err)
	}
	// The slot is free again: another owner that prefers it gets it.
	slot := lease.GetSlot()
	acq2, err := st.Acquire(ctx, connect.NewRequest(&cosidv1.AcquireRequest{Namespace: "ns", OwnerKey: "host-b", Limit: 4, Preferred: &slot,
		Tolerance: durationpb.New(time.Second), Ttl: durationpb.New(30 * time.Second)}))
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if acq2.Msg.Lease.GetSlot() != lease.GetSlot() {
		t.Errorf("slot %d after release, want %d", acq2.Msg.Lease.GetSlot(), lease.GetSlot())
	}
}

// TestConnect_StoreService_GiveBack_S7 gives a range's unused tail back over Connect,
// as POST /v1/store/give-back does: the next reserve starts at the tail's start; a
// give-back after another reserve lowers nothing; a bad tail is InvalidArgument.
func TestConnect_StoreService_GiveBack_S7(t *testing.T) {
	st := cosidv1connect.NewStoreServiceClient(http.DefaultClient, serveRPC(t, newServer(t, nil)))
	ctx := t.Context()
	reserve := func() (int64, int64) {
		t.Helper()
		res, err := st.Reserve(ctx, connect.NewRequest(&cosidv1.ReserveRequest{Key: "gb", Size: 10, InitialOffset: 1}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.Start, res.Msg.End
	}
	giveBack := func(start, end int64) (bool, error) {
		res, err := st.GiveBack(ctx, connect.NewRequest(&cosidv1.GiveBackRequest{Key: "gb", Start: start, End: end}))
		if err != nil {
			return false, err
		}
		return res.Msg.Lowered, nil
	}
	start, end := reserve()
	if lowered, err := giveBack(start+3, end); err != nil || !lowered {
		t.Fatalf("GiveBack [%d, %d) of the last range = %v, %v; want lowered", start+3, end, lowered, err)
	}
	if next, _ := reserve(); next != start+3 {
		t.Errorf("the reserve after the give-back starts at %d, want %d", next, start+3)
	}
	start, end = reserve()
	reserve() // another caller's reserve since
	if lowered, err := giveBack(start+1, end); err != nil || lowered {
		t.Errorf("GiveBack after another reserve = %v, %v; want not lowered (S7)", lowered, err)
	}
	_, err := giveBack(5, 5)
	var cerr *connect.Error
	if !errors.As(err, &cerr) || cerr.Code() != connect.CodeInvalidArgument {
		t.Errorf("GiveBack of an empty tail: %v, want InvalidArgument", err)
	}
}

// TestConnect_StoreService_NoStore checks that a server without a store answers
// NotFound naming the setting, as /v1/store does.
func TestConnect_StoreService_NoStore(t *testing.T) {
	s := mustNew(t, openRuntime(t), WithLogger(nil))
	st := cosidv1connect.NewStoreServiceClient(http.DefaultClient, serveRPC(t, s))
	_, err := st.Reserve(t.Context(), connect.NewRequest(&cosidv1.ReserveRequest{Key: "k", Size: 1}))
	if connect.CodeOf(err) != connect.CodeNotFound || !strings.Contains(err.Error(), "cosid.serve.store") {
		t.Fatalf("err = %v, want NotFound naming cosid.serve.store", err)
	}
}

// TestConnect_StoreService_Down checks that a store that cannot answer is
// Unavailable, with nothing of the store's own error in the message.
func TestConnect_StoreService_Down(t *testing.T) {
	st := cosidv1connect.NewStoreServiceClient(http.DefaultClient, serveRPC(t, newServer(t, downStore{})))
	_, err := st.Reserve(t.Context(), connect.NewRequest(&cosidv1.ReserveRequest{Key: "k", Size: 1}))
	if connect.CodeOf(err) != connect.CodeUnavailable || strings.Contains(err.Error(), errDown.Error()) {
		t.Fatalf("err = %v, want Unavailable without the store's error", err)
	}
}

// TestConnect_DecodeAndList checks Decode of a Snowflake id and ListGenerators.
func TestConnect_DecodeAndList(t *testing.T) {
	c := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, newServer(t, nil)))
	ctx := t.Context()
	next, err := c.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "event"}))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Decode(ctx, connect.NewRequest(&cosidv1.DecodeRequest{Name: "event", Text: next.Msg.Ids[0]}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Msg.Machine == nil || d.Msg.Time == nil || time.Since(d.Msg.Time.AsTime()) > time.Hour {
		t.Fatalf("decode = %v, want a machine and a recent time", d.Msg)
	}
	list, err := c.ListGenerators(ctx, connect.NewRequest(&cosidv1.ListGeneratorsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range list.Msg.Generators {
		names = append(names, g.Name+":"+g.State)
	}
	if got := strings.Join(names, " "); got != "bill:idle code:idle event:serving order:idle trace:idle" {
		t.Fatalf("generators = %s", got)
	}
}

// TestConnect_CrossSiteBrowser_Refused checks that the server's cross-origin rule
// covers the Connect API: a browser's cross-site POST, which needs no preflight when
// it is a simple request, is refused before the service, and a same-origin one passes.
func TestConnect_CrossSiteBrowser_Refused(t *testing.T) {
	s := newServer(t, nil)
	body := `{"name":"order"}`
	status, _, got := do(t, s, "POST", cosidv1connect.IdServiceNextProcedure, body, "Sec-Fetch-Site", "cross-site")
	if status != http.StatusForbidden || !strings.Contains(got, "cross-origin") {
		t.Fatalf("cross-site POST: %d %s, want 403", status, got)
	}
	status, _, got = do(t, s, "POST", cosidv1connect.IdServiceNextProcedure, body, "Sec-Fetch-Site", "same-origin")
	if status != http.StatusOK || !strings.Contains(got, `"ids"`) {
		t.Fatalf("same-origin POST: %d %s, want 200 with ids", status, got)
	}
}

// TestConnect_StoreService_Audited checks that the store calls go to the audit log
// with their role and outcome, and that no body is logged: a lease's incarnation
// never reaches the log.
func TestConnect_StoreService_Audited(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &log}, nil))
	st := cosidv1connect.NewStoreServiceClient(http.DefaultClient, serveRPC(t, newServer(t, nil, WithLogger(logger))))
	ctx := t.Context()
	acq, err := st.Acquire(ctx, connect.NewRequest(&cosidv1.AcquireRequest{Namespace: "au", OwnerKey: "o", Limit: 2,
		Ttl: durationpb.New(time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(ctx, connect.NewRequest(&cosidv1.ReserveRequest{Key: "au", Size: DefaultLimits().MaxReserve + 1})); err == nil {
		t.Fatal("a reserve over the limit passed")
	}
	mu.Lock()
	out := log.String()
	mu.Unlock()
	for _, want := range []string{
		`route=/cosid.v1.StoreService/ role=store`,
		`outcome="invalid_argument: size 1048577 is over this server's limit`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit log lacks %s:\n%s", want, out)
		}
	}
	if inc := acq.Msg.Lease.GetIncarnation(); strings.Contains(out, inc) {
		t.Errorf("audit log has the incarnation %q:\n%s", inc, out)
	}
}
