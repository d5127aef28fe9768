package clients_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

const token = "clients-t0ken"

// client is a range-leasing client of another language: its interpreter, the
// driver script of testdata, the environment that finds the client's code, what it
// needs installed besides its interpreter, and whether it calls the gRPC listener
// (serve.grpc-addr) rather than the HTTP one.
type client struct {
	name, interpreter, driver string
	env                       func(repo string) []string
	needs                     func(t *testing.T, repo string)
	grpc                      bool
}

var languages = []client{
	{name: "Python", interpreter: "python3", driver: "take.py", env: func(repo string) []string {
		return []string{"PYTHONPATH=" + filepath.Join(repo, "clients", "python")}
	}},
	{name: "Node", interpreter: "node", driver: "take.mjs", needs: nodeModules},
	// The Node client's protocol "grpc": the same client through connect-node's
	// gRPC transport, to grpc-go's listener.
	{name: "NodeGRPC", interpreter: "node", driver: "take.mjs", needs: nodeModules, grpc: true, env: func(string) []string {
		return []string{"COSID_PROTOCOL=grpc"}
	}},
}

// start finds the client's interpreter and what else it needs, and returns the
// interpreter's path.
func (c client) start(t *testing.T) string {
	t.Helper()
	interp := interpreter(t, c.interpreter)
	if c.needs != nil {
		c.needs(t, repoRoot(t))
	}
	return interp
}

// environ is the client's environment for the repository at repo.
func (c client) environ(repo string) []string {
	if c.env == nil {
		return nil
	}
	return c.env(repo)
}

// endpoint is the URL of srv that the client calls: its gRPC listener's or its
// HTTP one's.
func (c client) endpoint(srv *server) string {
	if c.grpc {
		return srv.grpcURL
	}
	return srv.URL
}

// nodeModules checks that the Node client's packages are installed (npm ci
// --prefix clients/node): without them the test fails under COSID_TEST_REQUIRE=1
// and skips otherwise.
func nodeModules(t *testing.T, repo string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(repo, "clients", "node", "node_modules", "@connectrpc", "connect-node", "package.json")); err == nil {
		return
	}
	if os.Getenv(testenv.Require) == "1" {
		t.Fatalf("clients/node/node_modules is missing and %s=1: run npm ci --prefix clients/node", testenv.Require)
	}
	t.Skip("clients/node/node_modules is missing: run npm ci --prefix clients/node to test the Node client")
}

// TestRangeClient_ServerKilledMidRun_NoIDTwice runs two clients of each language at
// once against two cosid serve on one store, one listing [A, B], the other [B, A].
// Each takes ranges of 50 ids; after 300 ids each, A is killed (SIGKILL), and each
// takes 700 more, which needs ranges from B only. Every id of both is unique, and
// each client got all it asked for.
func TestRangeClient_ServerKilledMidRun_NoIDTwice(t *testing.T) {
	dsn := testenv.Server(t, testenv.Postgres)
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			interp := lang.start(t)
			ns := fmt.Sprintf("clients_%s_%d_%d", strings.ToLower(lang.name), os.Getpid(), time.Now().UnixNano())
			a := startServe(t, ns, dsn)
			b := startServe(t, ns, dsn)
			const first, then = 300, 700
			urlA, urlB := lang.endpoint(a), lang.endpoint(b)
			drivers := []*driver{
				startDriver(t, lang, interp, []string{urlA, urlB}, first, then),
				startDriver(t, lang, interp, []string{urlB, urlA}, first, then),
			}
			for _, d := range drivers {
				d.waitFor(t, "pause")
			}
			a.Kill(t)
			for _, d := range drivers {
				d.resume(t)
			}
			seen := map[int64]string{}
			for i, d := range drivers {
				ids := d.finish(t)
				if len(ids) != first+then {
					t.Errorf("client %d handed out %d ids, want %d", i, len(ids), first+then)
				}
				for _, id := range ids {
					if where, dup := seen[id]; dup {
						t.Fatalf("id %d handed out twice: by %s and by client %d", id, where, i)
					}
					seen[id] = "client " + strconv.Itoa(i)
				}
			}
			t.Logf("%s: %d ids of 2 clients checked, none twice, server A killed after %d each", lang.name, len(seen), first)
		})
	}
}

// TestRangeClient_RefusesBadOptions checks that each client refuses a size past
// the server's cap with a message that names it, before it calls any server.
func TestRangeClient_RefusesBadOptions(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			interp := lang.start(t)
			cmd := exec.CommandContext(t.Context(), interp, filepath.Join("testdata", lang.driver))
			cmd.Env = append(append(os.Environ(), lang.environ(repoRoot(t))...), "COSID_URLS=http://127.0.0.1:9", "COSID_SIZE=10001")
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "size 10001") || !strings.Contains(string(out), "10000") {
				t.Errorf("size 10001: %v\n%s\nwant a failure naming the size and the cap", err, out)
			}
		})
	}
}

// TestRangeClient_NoServerAnswers checks the error of a client whose every server
// refuses the connection: one error naming each server, no id.
func TestRangeClient_NoServerAnswers(t *testing.T) {
	down := []string{"http://" + testenv.ClosedAddr(t), "http://" + testenv.ClosedAddr(t)}
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			d := startDriver(t, lang, lang.start(t), down, 1, 0)
			lines := d.rest(t)
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "error ") || !strings.Contains(lines[0], "no server answered") ||
				!strings.Contains(lines[0], down[0]) || !strings.Contains(lines[0], down[1]) {
				t.Errorf("with every server down the client printed %q, want one error naming both servers", lines)
			}
		})
	}
}

// TestRangeClient_TwoStoresNeverMixed runs each client against two servers on two
// stores (a copy-pasted configuration, one on PostgreSQL, one on its own SQLite
// file), whose ids are the same numbers. The client pins the store of its first
// range: once A is killed it refuses B's ranges, whose store differs, and fails
// rather than hand out one of B's ids. A client restarted with store_id pinned to
// A's store, when only B answers, hands out nothing.
func TestRangeClient_TwoStoresNeverMixed(t *testing.T) {
	dsn := testenv.Server(t, testenv.Postgres)
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			interp := lang.start(t)
			ns := fmt.Sprintf("clients_%s_%d_%d", strings.ToLower(lang.name), os.Getpid(), time.Now().UnixNano())
			a := startServe(t, ns, dsn)
			b := startServeOn(t, ns, "{ type: sql, driver: sqlite, dsn: cosid.db, options: { initSchema: true } }")
			urlA, urlB := lang.endpoint(a), lang.endpoint(b)
			storeA := storeIDOf(t, a.URL)
			if storeB := storeIDOf(t, b.URL); storeA == "" || storeA == storeB {
				t.Fatalf("the stores' identities are %q and %q; want two", storeA, storeB)
			}
			d := startDriver(t, lang, interp, []string{urlA, urlB}, 100, 400)
			d.waitFor(t, "pause")
			a.Kill(t)
			lines := d.rest(t)
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "error ") || !strings.Contains(lines[0], urlB+": refused: its store is") ||
				!strings.Contains(lines[0], storeA) {
				t.Errorf("after A was killed the client printed %q; want one error refusing B's store, naming A's %q", lines, storeA)
			}
			seen := map[int64]bool{}
			for _, id := range d.ids {
				if seen[id] {
					t.Fatalf("id %d handed out twice", id)
				}
				seen[id] = true
			}
			if len(d.ids) < 100 || len(d.ids) >= 500 {
				t.Errorf("%d ids handed out; want the 100 before the kill and those of A's ranges at hand, not all 500", len(d.ids))
			}

			restarted := startDriverEnv(t, lang, interp, []string{urlB}, 1, 0, "COSID_STORE_ID="+storeA)
			lines = restarted.rest(t)
			if len(restarted.ids) != 0 || len(lines) != 1 || !strings.Contains(lines[0], "refused: its store is") {
				t.Errorf("a client pinned to A's store, with only B up, printed ids %v and %q; want no id and the refusal", restarted.ids, lines)
			}
		})
	}
}

// storeIDOf takes a range of the server at url and returns the store identity its
// answer names.
func storeIDOf(t *testing.T, url string) string {
	t.Helper()
	_, id := takeRange(t, url)
	return id
}

// takeRange takes a range of one id of order from the server at url, and returns
// it, [start, end), and the store identity its answer names.
func takeRange(t *testing.T, url string) ([2]int64, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url+"/v1/generators/order/range?count=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Start int64 `json:"start,string"`
		End   int64 `json:"end,string"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET range of %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("GET range of %s: %v", url, err)
	}
	return [2]int64{r.Start, r.End}, resp.Header.Get("Cosid-Store-Id")
}

func interpreter(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv(testenv.Require) == "1" {
		t.Fatalf("%s is not on PATH and %s=1: install it to test its client", name, testenv.Require)
	}
	t.Skipf("%s is not on PATH: install it to test its client", name)
	return ""
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// driver is a running driver script: it prints "id N" lines, "pause", waits for a
// line on its stdin, then prints more and "done" (or "error …").
type driver struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	ids   []int64
}

func startDriver(t *testing.T, lang client, interp string, urls []string, first, then int) *driver {
	t.Helper()
	return startDriverEnv(t, lang, interp, urls, first, then)
}

// startDriverEnv is startDriver with more variables in the driver's environment.
func startDriverEnv(t *testing.T, lang client, interp string, urls []string, first, then int, env ...string) *driver {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), interp, filepath.Join("testdata", lang.driver))
	cmd.Env = append(append(append(os.Environ(), lang.environ(repoRoot(t))...),
		"COSID_URLS="+strings.Join(urls, ","), "COSID_TOKEN="+token, "COSID_SIZE=50", "COSID_TIMEOUT=5",
		"COSID_FIRST="+strconv.Itoa(first), "COSID_THEN="+strconv.Itoa(then)), env...)
	cmd.Stderr = &prefixWriter{t: t, prefix: lang.name + " stderr: "}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &driver{cmd: cmd, stdin: stdin, lines: make(chan string, 64)}
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return d
}

// waitFor reads id lines until want; any other line fails t.
func (d *driver) waitFor(t *testing.T, want string) {
	t.Helper()
	for line := range d.lines {
		if line == want {
			return
		}
		if !d.id(line) {
			t.Fatalf("the client printed %q before %q", line, want)
		}
	}
	t.Fatalf("the client ended before it printed %q", want)
}

func (d *driver) id(line string) bool {
	v, ok := strings.CutPrefix(line, "id ")
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return false
	}
	d.ids = append(d.ids, n)
	return true
}

func (d *driver) resume(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(d.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
}

// finish reads the driver's ids to its "done" and waits for it to exit.
func (d *driver) finish(t *testing.T) []int64 {
	t.Helper()
	d.waitFor(t, "done")
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("the client: %v", err)
	}
	return d.ids
}

// rest resumes the driver and returns the lines it printed that are not ids.
func (d *driver) rest(t *testing.T) []string {
	t.Helper()
	d.stdin.Close()
	var other []string
	for line := range d.lines {
		if !d.id(line) {
			other = append(other, line)
		}
	}
	d.cmd.Wait()
	return other
}

type prefixWriter struct {
	t      *testing.T
	prefix string
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.t.Log(w.prefix + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// server is a cosid serve of a test and the URL of its gRPC listener.
type server struct {
	*testenv.Serve
	grpcURL string
}

var grpcListening = regexp.MustCompile(`grpc-addr=(\S+)`)

// startServe runs cosid serve on a loopback port (and a gRPC listener on another)
// with generator order on the PostgreSQL store at dsn in namespace ns, behind token,
// and returns it once it listens.
func startServe(t *testing.T, ns, dsn string) *server {
	t.Helper()
	return startServeOn(t, ns, fmt.Sprintf("{ type: sql, driver: pgx, dsn: %q, options: { initSchema: true } }", dsn))
}

// startServeOn is startServe on the store of the YAML db, a SQLite file of the
// server's own directory when it names cosid.db.
func startServeOn(t *testing.T, ns, db string) *server {
	t.Helper()
	dir := t.TempDir()
	config := fmt.Sprintf(`
cosid:
  namespace: %s
  stores:
    db: %s
  generators:
    order: { strategy: segment, store: db, step: 20 }
`, ns, db)
	if err := os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testenv.Cosid(t), "serve", "--config", "cosid.yaml", "--addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--token-file", "token")
	cmd.Dir = dir
	srv := testenv.StartServe(t, cmd)
	m := grpcListening.FindStringSubmatch(srv.Log())
	if m == nil {
		t.Fatalf("cosid serve logged no grpc-addr:\n%s", srv.Log())
	}
	return &server{Serve: srv, grpcURL: "http://" + m[1]}
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveCosid()
	os.Exit(code)
}
