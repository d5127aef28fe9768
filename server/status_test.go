package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

func TestStatus_ServerRendered(t *testing.T) {
	s := newServer(t, nil, WithReadiness("store mem", func(*http.Request) error { return nil }))
	do(t, s, "GET", "/v1/generators/order/next?count=5", "")
	do(t, s, "GET", "/v1/generators/bill/next", "")
	do(t, s, "GET", "/v1/generators/event/next", "")
	status, h, body := do(t, s, "GET", "/", "")
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", status, h.Get("Content-Type"))
	}
	for _, want := range []string{
		"<td>order</td><td>segment</td><td>mem</td><td>test/order</td>",
		"<td>code</td><td>segment</td><td>mem</td><td>test/code</td><td colspan=\"8\" class=\"muted\">not used yet",
		"<td>bill</td><td>periodic-segment</td>",
		"<td>event</td><td>test/event</td><td>test-host</td><td class=\"num\">0</td><td class=\"num\">1</td>",
		`<td>store mem</td><td><span class="ok">ok</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, banned := range []string{"<script", "http://", "https://"} {
		if strings.Contains(body, banned) {
			t.Errorf("the page holds %q: no script, no external asset", banned)
		}
	}
}

// TestStatus_Chromium loads the page in headless Chromium and checks the DOM it
// built: the generators table has a row per generator, with the current range of the
// one that served ids. It saves a screenshot next to the test's output when
// COSID_STATUS_SCREENSHOT names a file.
func TestStatus_Chromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv(testenv.Require) == "1" {
			t.Fatalf("chromium is not installed and %s=1", testenv.Require)
		}
		t.Skip("chromium is not installed")
	}
	s := newServer(t, nil)
	do(t, s, "GET", "/v1/generators/order/next?count=5", "")
	do(t, s, "GET", "/v1/generators/code/next?count=5", "")
	do(t, s, "GET", "/v1/generators/event/next", "")
	hs := httptest.NewServer(s)
	defer hs.Close()

	dom := runChromium(t, chromium, "--dump-dom", hs.URL+"/")
	rows := regexp.MustCompile(`(?s)<table id="generators">.*?</table>`).FindString(dom)
	if n := strings.Count(rows, "<tr>"); n != 6 {
		t.Errorf("the generators table has %d rows, want a header and 5 generators:\n%s", n, rows)
	}
	if !regexp.MustCompile(`(?s)<td>order</td>.*?<td class="num">\[1, \d+\)</td><td class="num">6</td>`).MatchString(rows) {
		t.Errorf("the order row lacks its current range from 1 and next 6:\n%s", rows)
	}
	// The headroom in front of an operator: the ids left of code's width of 6,
	// when the layout of event ends, the free slots of its namespace.
	capacity := regexp.MustCompile(`(?s)<table id="capacity">.*?</table>`).FindString(dom)
	for _, want := range []string{
		`<tr><td>code</td><td class="num">999899</td><td class="num">999999</td><td>`,
		`<tr><td>event</td><td class="num"></td><td class="num"></td><td></td><td>2089-`,
		`<td>1023 of 1024 free in test/event</td>`,
	} {
		if !strings.Contains(capacity, want) {
			t.Errorf("the capacity table lacks %s:\n%s", want, capacity)
		}
	}
	if out := os.Getenv("COSID_STATUS_SCREENSHOT"); out != "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			t.Fatal(err)
		}
		runChromium(t, chromium, "--screenshot="+abs, "--window-size=1400,700", hs.URL+"/")
	}
}

// runChromium runs headless Chromium with args in a fresh profile and returns its
// stdout.
func runChromium(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

func TestSegmentStats_OnlyServedGenerators(t *testing.T) {
	s := newServer(t, nil)
	if st := s.SegmentStats(); len(st) != 0 {
		t.Fatalf("before any request: %+v, want none (the page and metrics build nothing)", st)
	}
	do(t, s, "GET", "/v1/generators/order/next?count=3", "")
	do(t, s, "GET", "/v1/generators/bill/next", "")
	st := s.SegmentStats()
	if len(st) < 2 || !strings.HasPrefix(st[0].Key, "test/bill/") || st[len(st)-1].Key != "test/order" || st[len(st)-1].Next != 4 {
		t.Errorf("SegmentStats = %+v, want bill's and order's, order next at 4", st)
	}
}
