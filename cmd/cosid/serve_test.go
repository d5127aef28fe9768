package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveProc is a cosid serve running in a process of its own.
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr strings.Builder
	done   chan error
}

func (p *serveProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

var listening = regexp.MustCompile(`listening" addr=(\S+)`)

// startServe runs cosid serve with args in dir on a free port and waits until it
// listens. The process is killed when t ends, unless it ended before.
func startServe(t *testing.T, dir string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		io.Copy(io.Discard, pipe)
		p.done <- cmd.Wait()
		close(addr)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("cosid serve %v ended before it listened:\n%s", args, p.log())
		}
		p.url = "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatalf("cosid serve %v did not listen within 30s:\n%s", args, p.log())
	}
	return p
}

// stop sends sig and waits for the process to end.
func (p *serveProc) stop(t *testing.T, sig os.Signal) error {
	t.Helper()
	p.cmd.Process.Signal(sig)
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("cosid serve did not stop on %v:\n%s", sig, p.log())
		return nil
	}
}

func get(t *testing.T, url string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

const serveConfig = `
cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: cosid.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 10 }
    event: { strategy: snowflake, store: db, owner-key: serve-test, slots: 4 }
  serve: { store: db }
`

// TestServe_PeriodicMetricsAtTheGeneratorsKey: the reservation series of a daily
// generator are at its key, app/bill, so that it adds none a day; only the
// cosid_segment_* series, read at each scrape, name the period they hold now.
func TestServe_PeriodicMetricsAtTheGeneratorsKey(t *testing.T) {
	dir := writeConfig(t, strings.Replace(serveConfig, "  serve:", "    bill: { strategy: periodic-segment, store: db, period: YEAR_MONTH_DAY, zone: UTC }\n  serve:", 1))
	p := startServe(t, dir)
	if status, body := get(t, p.url+"/v1/generators/bill/next"); status != 200 {
		t.Fatalf("next bill: %d %q", status, body)
	}
	_, exposition := get(t, p.url+"/metrics")
	if !strings.Contains(exposition, `cosid_reservations_total{key="app/bill",store="db"} 1`) {
		t.Errorf("/metrics lacks cosid_reservations_total of app/bill:\n%s", exposition)
	}
	for line := range strings.SplitSeq(exposition, "\n") {
		if strings.Contains(line, `key="app/bill/`) && !strings.HasPrefix(line, "cosid_segment_") {
			t.Errorf("a series of a period: %s", line)
		}
	}
}

// TestServe_IdsAndGracefulShutdown serves a configuration, takes ids, and stops the
// server with SIGTERM: it exits 0 after releasing its Snowflake lease.
func TestServe_IdsAndGracefulShutdown(t *testing.T) {
	dir := writeConfig(t, serveConfig)
	p := startServe(t, dir)
	if status, body := get(t, p.url+"/v1/generators/order/next?count=3"); status != 200 || body != "1\n2\n3\n" {
		t.Errorf("next order: %d %q", status, body)
	}
	if status, body := get(t, p.url+"/v1/generators/event/next"); status != 200 {
		t.Errorf("next event: %d %q", status, body)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/v1/generators", "/"} {
		if status, body := get(t, p.url+path); status != 200 {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
	_, exposition := get(t, p.url+"/metrics")
	for _, want := range []string{`cosid_segment_reservations_total{key="app/order"} 1`, `cosid_http_requests_total{code="200",route="GET /v1/generators/{name}/next"} 2`,
		`cosid_lease_slot{namespace="app/event",owner="serve-test"} 0`,
		`cosid_reservations_total{key="app/order",store="db"} 1`, `cosid_leases_held{namespace="app/event"} 1`} {
		if !strings.Contains(exposition, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("cosid serve on SIGTERM: %v\n%s", err, p.log())
	}
	if !strings.Contains(p.log(), "shutting down") {
		t.Errorf("no shutdown in the log:\n%s", p.log())
	}
	// The lease was released: a new server of the same owner starts at once and
	// goes on with the segment where the first one stopped, which gave back the
	// rest of its range (S7).
	p2 := startServe(t, dir)
	if status, body := get(t, p2.url+"/v1/generators/order/next"); status != 200 || body != "4\n" {
		t.Errorf("next order after a restart: %d %q, want 4 (the rest of the first range given back)", status, body)
	}
	// Had the first server kept its lease of slot 0, the second would have slot 1.
	_, id := get(t, p2.url+"/v1/generators/event/next")
	if status, body := get(t, p2.url+"/v1/generators/event/decode?text="+strings.TrimSpace(id)); status != 200 || !strings.Contains(body, `"machine":0,`) {
		t.Errorf("the restarted server's snowflake: %d %s, want machine 0, released by the first", status, body)
	}
}

func TestServe_TokenFile(t *testing.T) {
	dir := writeConfig(t, serveConfig)
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, dir, "--token-file", token)
	if status, _ := get(t, p.url+"/v1/generators"); status != 401 {
		t.Errorf("without the token: %d, want 401", status)
	}
	if status, body := get(t, p.url+"/v1/generators", "Authorization", "Bearer tok-123"); status != 200 {
		t.Errorf("with the token: %d %s", status, body)
	}
	if status, _ := get(t, p.url+"/healthz"); status != 200 {
		t.Errorf("healthz without the token: %d, want 200", status)
	}
}

func TestServe_BadFlagsExit1(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"serve", "--tls-cert", "c.pem"}, "--tls-key"},
		{[]string{"serve", "--token-file", "/nonexistent/token"}, "--token-file"},
		{[]string{"serve", "--config", "/nonexistent/cosid.yaml"}, "cosid.yaml"},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "99999"},
		{[]string{"serve", "extra"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			out, errOut, code := runCLI(t, dir, tc.args...)
			if code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and a message naming %s", code, out, errOut, tc.mention)
			}
		})
	}
}
