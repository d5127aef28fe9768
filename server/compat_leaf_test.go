package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// compatConfig has a keyed segment generator for Leaf's and tinyid's keys and a
// Snowflake generator of Leaf's own layout: Twitter's epoch, 10 worker bits, 12 of
// sequence (leaf-core's SnowflakeIDGenImpl).
const compatConfig = `
cosid:
  namespace: test
  stores:
    mem: { type: memory }
  generators:
    biz: { strategy: segment, store: mem, keyed: true, step: 10 }
    plain: { strategy: segment, store: mem }
    leafsf: { strategy: snowflake, machine-id: 39, epoch: "2010-11-04T01:42:54.657Z", timestamp-bits: 41, machine-bits: 10, sequence-bits: 12 }
`

// compatServer serves compatConfig with opts, and has made the keys of the Leaf
// and tinyid examples as their migrations would: leaf-segment-test and test at 2.
func compatServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(compatConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"leaf-segment-test", "test"} {
		if _, err := st.(store.Admin).RaiseTo(t.Context(), "test/biz/"+key, 2); err != nil {
			t.Fatal(err)
		}
	}
	return mustNew(t, rt, opts...)
}

// leafError is Spring Boot 1.5's error body of Leaf's LeafServerException.
func leafError(ms int64, message, path string) string {
	return fmt.Sprintf(`{"timestamp":%d,"status":500,"error":"Internal Server Error","exception":"com.sankuai.inf.leaf.server.exception.LeafServerException","message":%q,"path":%q}`, ms, message, path)
}

func TestLeaf_AnswersAsLeafDoes(t *testing.T) {
	s := compatServer(t, WithLeaf("biz", "leafsf"))
	now := time.Date(2026, 12, 7, 4, 30, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	tests := []struct {
		name, target string
		status       int
		ctype, body  string
	}{
		{"a key's first id", "/api/segment/get/leaf-segment-test", 200, "text/plain;charset=UTF-8", "2"},
		{"and its next", "/api/segment/get/leaf-segment-test", 200, "text/plain;charset=UTF-8", "3"},
		{"a key the store has not", "/api/segment/get/nope", 500, "application/json;charset=UTF-8",
			leafError(now.UnixMilli(), "Result{id=-2, status=EXCEPTION}", "/api/segment/get/nope")},
		{"a key that cannot be one", "/api/segment/get/" + url.PathEscape("no key"), 500, "application/json;charset=UTF-8",
			leafError(now.UnixMilli(), "Result{id=-2, status=EXCEPTION}", "/api/segment/get/no key")},
		{"a decode of a text that is no number", "/decodeSnowflakeId?snowflakeId=abc", 200, "application/json;charset=UTF-8",
			`{"errorMsg":"snowflake Id反解析发生异常!"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, h, body := do(t, s, "GET", tc.target, "")
			if status != tc.status || h.Get("Content-Type") != tc.ctype || body != tc.body {
				t.Errorf("GET %s = %d %q %s; want %d %q %s", tc.target, status, h.Get("Content-Type"), body, tc.status, tc.ctype, tc.body)
			}
		})
	}
	if status, _, _ := do(t, s, "GET", "/decodeSnowflakeId", ""); status != http.StatusBadRequest {
		t.Errorf("a decode without snowflakeId = %d; want 400, as Spring refuses a missing parameter", status)
	}
	if status, _, _ := do(t, s, "HEAD", "/api/segment/get/leaf-segment-test", ""); status != http.StatusMethodNotAllowed {
		t.Errorf("HEAD of a Leaf id route = %d; want 405: a HEAD would take an id and drop it", status)
	}
}

// TestLeaf_SnowflakeDecodesAsLeafsFormula takes a Snowflake id from Leaf's route
// and decodes it on Leaf's decode route: the answer is the one Leaf's own code
// (LeafMonitorController.decodeSnowflakeId, its shifts and epoch) gives for the id,
// byte for byte, and so is that of the id of Leaf's comment (worker 39, sequence
// 3448 at 1567733700834).
func TestLeaf_SnowflakeDecodesAsLeafsFormula(t *testing.T) {
	s := compatServer(t, WithLeaf("", "leafsf"))
	status, _, text := do(t, s, "GET", "/api/snowflake/get/any-key", "")
	id, err := strconv.ParseInt(text, 10, 64)
	if status != 200 || err != nil {
		t.Fatalf("GET /api/snowflake/get/any-key = %d %q; want an id", status, text)
	}
	leafs := func(id int64) string { // Leaf's decodeSnowflakeId, line by line, in Jackson's order of its HashMap
		origin := (id >> 22) + 1288834974657
		worker := (id >> 12) ^ (id >> 22 << 10)
		seq := id ^ (id >> 12 << 12)
		ts := fmt.Sprintf("%d(%s)", origin, time.UnixMilli(origin).Format("2006-01-02 15:04:05.000"))
		return fmt.Sprintf(`{"workerId":"%d","sequenceId":"%d","timestamp":%q}`, worker, seq, ts)
	}
	example := (int64(1567733700834-1288834974657) << 22) | 39<<12 | 3448
	for _, id := range []int64{id, example} {
		_, _, got := do(t, s, "GET", "/decodeSnowflakeId?snowflakeId="+strconv.FormatInt(id, 10), "")
		if want := leafs(id); got != want {
			t.Errorf("decode of %d = %s; want Leaf's %s", id, got, want)
		}
	}
	if status, _, _ := do(t, s, "GET", "/api/segment/get/test", ""); status != http.StatusNotFound {
		t.Errorf("the segment route without a segment generator = %d; want 404", status)
	}
}

func TestTinyid_AnswersAsTinyidDoes(t *testing.T) {
	const token = "tinyid-t0ken-0123456789"
	s := compatServer(t, WithTinyid("biz"), WithRoleToken(RoleIDs, token))
	tests := []struct {
		name, target, body string
		header             []string
	}{
		{"three ids of bizType test", "/tinyid/id/nextId?bizType=test&batchSize=3&token=" + token, `{"data":[2,3,4],"code":200,"message":""}`, nil},
		{"without batchSize, one", "/tinyid/id/nextId?bizType=test&token=" + token, `{"data":[5],"code":200,"message":""}`, nil},
		{"the simple form", "/tinyid/id/nextIdSimple?bizType=test&batchSize=2&token=" + token, "6,7", nil},
		{"the token as a bearer", "/tinyid/id/nextIdSimple?bizType=test", "8", []string{"Authorization", "Bearer " + token}},
		{"a batch of 0 is none", "/tinyid/id/nextId?bizType=test&batchSize=0&token=" + token, `{"data":[],"code":200,"message":""}`, nil},
		{"a wrong token", "/tinyid/id/nextId?bizType=test&token=nope", `{"data":null,"code":5,"message":"token is error"}`, nil},
		{"no token", "/tinyid/id/nextId?bizType=test", `{"data":null,"code":5,"message":"token is error"}`, nil},
		{"a wrong token, simple", "/tinyid/id/nextIdSimple?bizType=test&token=nope", "", nil},
		{"a bizType the store has not", "/tinyid/id/nextId?bizType=nope&token=" + token, `{"data":null,"code":6,"message":"can not find biztype:nope"}`, nil},
		{"and simple", "/tinyid/id/nextIdSimple?bizType=nope&token=" + token, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := do(t, s, "GET", tc.target, "", tc.header...)
			if status != 200 || body != tc.body {
				t.Errorf("GET %s = %d %s; want 200 %s", tc.target, status, body, tc.body)
			}
		})
	}
	if status, _, _ := do(t, s, "GET", "/api/segment/get/test", "", "Authorization", "Bearer "+token); status != http.StatusNotFound {
		t.Errorf("a Leaf route without WithLeaf = %d; want 404", status)
	}
}

func TestLeafTinyid_OptionsNameKeyedSegmentGenerators(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(compatConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, opt := range []Option{WithLeaf("leafsf", ""), WithLeaf("plain", ""), WithLeaf("", "biz"), WithLeaf("nope", ""), WithTinyid("leafsf"), WithTinyid("plain")} {
		if _, err := New(rt, opt); err == nil {
			t.Errorf("New with a generator of the wrong kind or none: no error")
		}
	}
}
