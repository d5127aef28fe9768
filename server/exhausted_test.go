package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// TestReadyz_DetailsNameExhaustedGenerators: /readyz stays ready while a
// generator is full, since the others serve, and its details name the generator
// and, of a keyed template, the full keys.
func TestReadyz_DetailsNameExhaustedGenerators(t *testing.T) {
	s := narrowServer(t)
	do(t, s, "GET", "/v1/generators/digit/range?count=100", "")
	do(t, s, "GET", "/v1/generators/digit/next", "")
	do(t, s, "GET", "/v1/generators/inv/range?key=victim&count=100", "")
	do(t, s, "GET", "/v1/generators/inv/next?key=victim", "")
	status, _, body := do(t, s, "GET", "/readyz", "")
	var got readiness
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK || !got.Ready || !strings.HasPrefix(got.Exhausted["digit"], "full") || got.Exhausted["inv"] != "keys full: victim" {
		t.Errorf("/readyz = %d %s; want ready, with digit full and inv's key victim", status, body)
	}
}

// TestStatus_ShowsHeadroom: the status page shows, from the capacity reader's
// figures, the ids left of a codec with a width and when they run out, a full
// generator, a Snowflake layout's end and a lease namespace's free slots.
func TestStatus_ShowsHeadroom(t *testing.T) {
	rt := openConfig(t, testConfig+`    digit: { strategy: segment, store: mem, step: 1, max-batch: 1, codec: [ { radix: { radix: 10, width: 1 } } ] }
`)
	s := mustNew(t, rt, WithLogger(nil))
	do(t, s, "GET", "/v1/generators/code/next?count=5", "")
	do(t, s, "GET", "/v1/generators/event/next", "")
	do(t, s, "GET", "/v1/generators/digit/range?count=100", "")
	do(t, s, "GET", "/v1/generators/digit/next", "")
	_, _, body := do(t, s, "GET", "/", "")
	table := regexp.MustCompile(`(?s)<table id="capacity">.*?</table>`).FindString(body)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`<tr><td>code</td><td class="num">999899</td><td class="num">999999</td><td>(in \d[^<]*|not at the current rate \(none\))</td>`),
		regexp.MustCompile(`<tr><td>digit</td><td class="num"><span class="bad">full</span> 0</td><td class="num">9</td><td>now: full</td>`),
		regexp.MustCompile(`<tr><td>event</td><td class="num"></td><td class="num"></td><td></td><td>2089-\d\d-\d\d</td><td>1023 of 1024 free in test/event</td>`),
	} {
		if !want.MatchString(table) {
			t.Errorf("the capacity table lacks %s:\n%s", want, table)
		}
	}
}

// TestReadRanges_CappedAtCodecWidth: a ReadRanges stream, on both listeners,
// stops at the codec's largest value as StreamRanges does, then answers
// resource_exhausted naming the width, though more ranges were asked for.
func TestReadRanges_CappedAtCodecWidth(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			conn := dialGRPC(t, l.serve(t, mustNew(t, narrowServer(t).rt, WithLogger(nil), WithH2C(true))))
			st := openReadRanges(t, t.Context(), conn, &cosidv1.ReadRangesRequest{Name: "inv", Key: "victim", Size: 4, Want: 5})
			var got [][2]int64
			var err error
			for {
				var m *cosidv1.ReadRangesResponse
				if m, err = st.Recv(); err != nil {
					break
				}
				got = append(got, [2]int64{m.GetStart(), m.GetEnd()})
			}
			if !slices.Equal(got, [][2]int64{{1, 5}, {5, 9}, {9, 10}}) || status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "the width 1") {
				t.Fatalf("ReadRanges(inv, victim, 5 ranges of 4) = %v, %v; want [1, 5) [5, 9) [9, 10), then resource_exhausted naming the width", got, err)
			}
		})
	}
}
