package server

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

var cosIDText = regexp.MustCompile(`^[0-9A-Za-z]{15}$`)

// TestCosIDGenerator_EveryAPI serves the ids of a cosid-generator, text only, on
// every API that hands out ids: /v1's next (text and JSON) and decode, 4.x's
// /ids/as-string, Connect's Next and Decode; the routes of int64 ids and of ranges
// refuse it, saying what to use. Its leased machine id shows on the status page.
func TestCosIDGenerator_EveryAPI(t *testing.T) {
	s := newServer(t, nil)
	status, _, body := do(t, s, "GET", "/v1/generators/trace/next?count=3", "")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if status != http.StatusOK || len(lines) != 3 {
		t.Fatalf("/next?count=3: %d %q", status, body)
	}
	for i, id := range lines {
		if !cosIDText.MatchString(id) || i > 0 && id <= lines[i-1] {
			t.Fatalf("/next?count=3 = %q: want 15 characters of radix 62, in order", lines)
		}
	}
	status, _, body = do(t, s, "GET", "/v1/generators/trace/next", "", "Accept", "application/json")
	var ids struct{ IDs []string }
	if err := json.Unmarshal([]byte(body), &ids); status != http.StatusOK || err != nil || len(ids.IDs) != 1 || ids.IDs[0] <= lines[2] {
		t.Fatalf("/next as JSON: %d %s", status, body)
	}

	status, _, body = do(t, s, "GET", "/v1/generators/trace/decode?text="+lines[0], "")
	var d map[string]any
	if err := json.Unmarshal([]byte(body), &d); status != http.StatusOK || err != nil {
		t.Fatalf("/decode: %d %s", status, body)
	}
	if _, ok := d["value"]; ok || d["machine"] != 0.0 || d["time"] == nil || d["sequence"] == nil {
		t.Errorf("/decode = %s, want time, machine 0 and sequence, and no value", body)
	}
	if status, _, body = do(t, s, "GET", "/v1/generators/trace/decode?text=0V70MWFf000700", ""); status != http.StatusBadRequest || !strings.Contains(body, "14 bytes, want 15") {
		t.Errorf("/decode of a short text: %d %s, want a 400 that says why", status, body)
	}

	status, _, body = do(t, s, "GET", "/ids/as-string/trace", "")
	if status != http.StatusOK || !cosIDText.MatchString(body) {
		t.Errorf("/ids/as-string/trace: %d %q, want an id as text", status, body)
	}
	if status, _, body = do(t, s, "GET", "/ids/trace", ""); status != http.StatusBadRequest || !strings.Contains(body, "/ids/as-string/trace") {
		t.Errorf("/ids/trace: %d %s, want a 400 naming /ids/as-string/trace", status, body)
	}
	if status, _, body = do(t, s, "GET", "/v1/generators/trace/range?count=3", ""); status != http.StatusBadRequest || !strings.Contains(body, "not in ranges") {
		t.Errorf("/range: %d %s, want a 400 saying its ids come one at a time", status, body)
	}

	status, _, body = do(t, s, "GET", "/", "")
	if status != http.StatusOK || !strings.Contains(body, "test/trace") {
		t.Errorf("the status page (%d) does not show the lease of trace's namespace test/trace", status)
	}
}

// TestCosIDGenerator_Connect takes and decodes a cosid-generator's ids over the
// Connect API, whose NextRange refuses them.
func TestCosIDGenerator_Connect(t *testing.T) {
	c := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, newServer(t, nil)))
	ctx := t.Context()
	next, err := c.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "trace", Count: 2}))
	if err != nil || len(next.Msg.Ids) != 2 || !cosIDText.MatchString(next.Msg.Ids[0]) || next.Msg.Ids[1] <= next.Msg.Ids[0] {
		t.Fatalf("Next = %v, %v; want 2 ids of radix 62, in order", next, err)
	}
	d, err := c.Decode(ctx, connect.NewRequest(&cosidv1.DecodeRequest{Name: "trace", Text: next.Msg.Ids[0]}))
	if err != nil || d.Msg.Time == nil || d.Msg.Machine == nil || d.Msg.GetValue() != 0 {
		t.Fatalf("Decode = %v, %v; want a time and a machine", d, err)
	}
	if _, err := c.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "trace", Count: 3})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("NextRange of a cosid-generator: %v, want invalid_argument", err)
	}
}
