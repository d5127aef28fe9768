package server

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// TestNext_CodecFullIsConflictExhausted: past its codec's width a generator is a
// 409 exhausted (Connect: resource_exhausted) naming the width, not a 503 of an
// unavailable store.
func TestNext_CodecFullIsConflictExhausted(t *testing.T) {
	rt := openConfig(t, `cosid:
  stores:
    mem: { type: memory }
  generators:
    digit: { strategy: segment, store: mem, codec: [ { radix: { radix: 10, width: 1 } } ] }
`)
	s := mustNew(t, rt, WithLogger(nil))
	if status, _, body := do(t, s, "GET", "/v1/generators/digit/next?count=9", ""); status != http.StatusOK {
		t.Fatalf("the 9 ids that fit: %d %s", status, body)
	}
	status, _, body := do(t, s, "GET", "/v1/generators/digit/next", "")
	if status != http.StatusConflict || !strings.Contains(body, `"code":"exhausted"`) || !strings.Contains(body, "the width 1") {
		t.Errorf("next past the width = %d %s, want 409 exhausted naming the width", status, body)
	}
	status, _, body = do(t, s, "POST", "/cosid.v1.IdService/Next", `{"name":"digit"}`)
	if status != http.StatusTooManyRequests || !strings.Contains(body, `"code":"resource_exhausted"`) {
		t.Errorf("Connect Next past the width = %d %s, want resource_exhausted", status, body)
	}
}

// narrowServer serves generators whose codec writes one digit: ids end at 9.
func narrowServer(t *testing.T) *Server {
	t.Helper()
	rt := openConfig(t, `cosid:
  stores:
    mem: { type: memory }
  generators:
    digit: { strategy: segment, store: mem, codec: [ { radix: { radix: 10, width: 1 } } ] }
    inv: { strategy: segment, store: mem, keyed: true, codec: [ { prefix: { value: "INV-" } }, { radix: { radix: 10, width: 1 } } ] }
`)
	return mustNew(t, rt, WithLogger(nil))
}

// TestRange_CappedAtCodecWidth: /range hands out no value its generator's codec
// cannot write: at the width the range ends at the codec's largest value, and past
// it the answer is 409 exhausted, not a range of values without text.
func TestRange_CappedAtCodecWidth(t *testing.T) {
	s := narrowServer(t)
	for _, step := range []struct{ target, want string }{
		{"/v1/generators/digit/range?count=6", `{"end":"7","start":"1"}`},
		{"/v1/generators/digit/range?count=6", `{"end":"10","start":"7"}`},
		{"/v1/generators/inv/range?key=victim&count=10000", `{"end":"10","start":"1"}`},
	} {
		if status, _, body := do(t, s, "GET", step.target, ""); status != http.StatusOK || strings.TrimSpace(body) != step.want {
			t.Errorf("GET %s = %d %s, want %s", step.target, status, body, step.want)
		}
	}
	for _, target := range []string{"/v1/generators/digit/range", "/v1/generators/inv/range?key=victim", "/v1/generators/inv/next?key=victim"} {
		status, _, body := do(t, s, "GET", target, "")
		if status != http.StatusConflict || !strings.Contains(body, `"code":"exhausted"`) || !strings.Contains(body, "the width 1") {
			t.Errorf("GET %s past the width = %d %s, want 409 exhausted naming the width", target, status, body)
		}
	}
	if status, _, body := do(t, s, "GET", "/v1/generators/inv/next?key=other", ""); status != http.StatusOK || body != "INV-1\n" {
		t.Errorf("another key of the template = %d %q, want its first id", status, body)
	}
}

// TestNext_ShortRangeAtWidthIsExhausted: /next of more ids than the codec's width
// has left answers 409 exhausted naming what was left, never fewer ids than asked.
func TestNext_ShortRangeAtWidthIsExhausted(t *testing.T) {
	s := narrowServer(t)
	do(t, s, "GET", "/v1/generators/digit/next?count=7", "")
	status, _, body := do(t, s, "GET", "/v1/generators/digit/next?count=5", "")
	if status != http.StatusConflict || !strings.Contains(body, `"code":"exhausted"`) || !strings.Contains(body, "5 ids asked for and 2 left") {
		t.Errorf("next?count=5 with 2 left = %d %s, want 409 exhausted naming the 2 left", status, body)
	}
}

// TestConnectRanges_CappedAtCodecWidth: NextRange and StreamRanges stop at the
// codec's largest value, then answer resource_exhausted.
func TestConnectRanges_CappedAtCodecWidth(t *testing.T) {
	ids := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, narrowServer(t)))
	ctx := t.Context()
	rg, err := ids.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "inv", Key: "victim", Count: 3}))
	if err != nil || rg.Msg.Start != 1 || rg.Msg.End != 4 {
		t.Fatalf("NextRange(inv, victim, 3) = %v, %v; want [1, 4)", rg, err)
	}
	stream, err := ids.StreamRanges(ctx, connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "inv", Key: "victim", Size: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]int64
	for stream.Receive() {
		got = append(got, [2]int64{stream.Msg().Start, stream.Msg().End})
	}
	var ce *connect.Error
	if !slices.Equal(got, [][2]int64{{4, 10}}) || !errors.As(stream.Err(), &ce) || ce.Code() != connect.CodeResourceExhausted {
		t.Errorf("StreamRanges(inv, victim, 2^20) = %v, %v; want [4, 10) then resource_exhausted", got, stream.Err())
	}
	_, err = ids.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "digit", Count: 10}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ids.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "digit"}))
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || !strings.Contains(ce.Message(), "the width 1") {
		t.Errorf("NextRange(digit) past the width = %v, want resource_exhausted naming the width", err)
	}
}
