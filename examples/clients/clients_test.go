package clients_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
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

const token = "examples-t0ken"

// clients are the examples, by name: the interpreter and the script.
var clients = []struct{ name, interpreter, script string }{
	{"Python", "python3", "python/client.py"},
	{"Node", "node", "node/client.mjs"},
}

// TestClient_TakesIdsAndReservesARange runs each client twice against a real cosid
// serve: every id over /v1 is unique and ascending across both runs, and each run's
// range holds the size asked, handed out locally in order, apart from the other's.
func TestClient_TakesIdsAndReservesARange(t *testing.T) {
	srv, _ := startServe(t)
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			interpreter := lookInterpreter(t, c.interpreter)
			first := parseOutput(t, runClient(t, interpreter, c.script, srv, token))
			second := parseOutput(t, runClient(t, interpreter, c.script, srv, token))
			ids := append(first.ids, second.ids...)
			if len(first.ids) != 6 || len(second.ids) != 6 {
				t.Errorf("ids over /v1: %v then %v, want 6 a run", first.ids, second.ids)
			}
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Errorf("ids over /v1 %v: %d after %d, want each above the one before", ids, ids[i], ids[i-1])
					break
				}
			}
			for _, run := range []output{first, second} {
				if run.end-run.start != 100 {
					t.Errorf("range [%d, %d), want 100 ids", run.start, run.end)
				}
				if len(run.local) != int(run.end-run.start) {
					t.Errorf("%d ids handed out locally from [%d, %d), want all", len(run.local), run.start, run.end)
				}
				for i, v := range run.local {
					if v != run.start+int64(i) {
						t.Errorf("local id %d is %d, want %d: the range in order", i, v, run.start+int64(i))
						break
					}
				}
			}
			if second.start < first.end {
				t.Errorf("the second run's range [%d, %d) overlaps the first's [%d, %d)", second.start, second.end, first.start, first.end)
			}
		})
	}
}

// TestClient_WrongTokenFails runs each client with a token the server does not
// have: it exits with an error naming the refusal, and prints no id.
func TestClient_WrongTokenFails(t *testing.T) {
	srv, _ := startServe(t)
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			interpreter := lookInterpreter(t, c.interpreter)
			cmd := clientCmd(t, interpreter, c.script, srv, "not-the-token")
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "401 unauthorized") || strings.Contains(string(out), "\nid ") {
				t.Errorf("with a wrong token: %v\n%s\nwant a failure naming 401 unauthorized", err, out)
			}
		})
	}
}

// TestClient_NoServerIsOneLine runs each client against a port where nothing
// listens: it exits with one line naming the URL and the refusal, not a
// traceback or a stack.
func TestClient_NoServerIsOneLine(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close() // nothing listens there now: the connection is refused
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			interpreter := lookInterpreter(t, c.interpreter)
			out, err := clientCmd(t, interpreter, c.script, url, token).CombinedOutput()
			text := strings.TrimSpace(string(out))
			if err == nil || strings.Count(text, "\n") != 0 || !strings.Contains(text, url) || !strings.Contains(text, "COSID_URL") {
				t.Errorf("with no server at %s: %v\n%s\nwant a failure of one line naming the URL and COSID_URL", url, err, out)
			}
		})
	}
}

// TestClient_NodeGRPC runs the grpc-js client of node/grpc.mjs against the gRPC
// listener of a real cosid serve: it takes ascending ids with the token, and fails
// naming UNAUTHENTICATED with a wrong one. Its packages come from npm ci.
func TestClient_NodeGRPC(t *testing.T) {
	node := lookInterpreter(t, "node")
	npmCI(t)
	_, addr := startServe(t)
	run := func(tok string) *exec.Cmd {
		cmd := clientCmd(t, node, "node/grpc.mjs", "", tok)
		cmd.Env = append(cmd.Env, "COSID_GRPC_ADDR="+addr)
		return cmd
	}
	out, err := run(token).CombinedOutput()
	if err != nil {
		t.Fatalf("node node/grpc.mjs: %v\n%s", err, out)
	}
	var ids []int64
	for line := range strings.Lines(string(out)) {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "grpc id ")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			t.Fatalf("a line the client does not print: %q", line)
		}
		ids = append(ids, n)
	}
	if len(ids) != 3 || ids[0] >= ids[1] || ids[1] >= ids[2] {
		t.Errorf("ids over gRPC %v, want 3 ascending", ids)
	}
	out, err = run("not-the-token").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "UNAUTHENTICATED") || strings.Contains(string(out), "grpc id") {
		t.Errorf("with a wrong token: %v\n%s\nwant a failure naming UNAUTHENTICATED", err, out)
	}
}

// npmCI installs the packages of node/package-lock.json (npm ci), unless they are
// there; without npm, or when the registry cannot be reached, the test skips,
// unless COSID_TEST_REQUIRE=1 makes it a failure.
func npmCI(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node", "node_modules", "@grpc", "grpc-js", "package.json")); err == nil {
		return
	}
	npm := lookInterpreter(t, "npm")
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = "node"
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("COSID_TEST_REQUIRE") == "1" {
			t.Fatalf("npm ci in examples/clients/node: %v\n%s", err, out)
		}
		t.Skipf("npm ci in examples/clients/node: %v\n%s", err, out)
	}
}

// lookInterpreter finds name on PATH; without it the test skips, unless
// COSID_TEST_REQUIRE=1 makes it a failure.
func lookInterpreter(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("COSID_TEST_REQUIRE") == "1" {
		t.Fatalf("%s is not on PATH and COSID_TEST_REQUIRE=1: install it to test its client", name)
	}
	t.Skipf("%s is not on PATH: install it to test its client", name)
	return ""
}

func clientCmd(t *testing.T, interpreter, script, url, token string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, interpreter, script)
	cmd.Env = append(os.Environ(), "COSID_URL="+url, "COSID_TOKEN="+token)
	return cmd
}

func runClient(t *testing.T, interpreter, script, url, token string) []byte {
	t.Helper()
	cmd := clientCmd(t, interpreter, script, url, token)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", interpreter, script, err, out, stderr.Bytes())
	}
	return out
}

// output is what a client printed: "id N" lines, one "range START END" and the
// "local N" lines of the range.
type output struct {
	ids        []int64
	start, end int64
	local      []int64
}

func parseOutput(t *testing.T, out []byte) output {
	t.Helper()
	var o output
	ranges := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		nums := make([]int64, len(f))
		for i := 1; i < len(f); i++ {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			nums[i] = n
		}
		switch {
		case len(f) == 2 && f[0] == "id":
			o.ids = append(o.ids, nums[1])
		case len(f) == 2 && f[0] == "local":
			o.local = append(o.local, nums[1])
		case len(f) == 3 && f[0] == "range":
			o.start, o.end = nums[1], nums[2]
			ranges++
		default:
			t.Fatalf("a line the client does not print: %q", sc.Text())
		}
	}
	if ranges != 1 {
		t.Fatalf("%d range lines in\n%s\nwant 1", ranges, out)
	}
	return o
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveCosid()
	os.Exit(code)
}

var grpcListening = regexp.MustCompile(`grpc-addr=(\S+)`)

// startServe runs cosid serve on a loopback port with a memory store, the generator
// order and the store API, behind token, and returns its URL and the address of its
// gRPC listener once it listens.
func startServe(t *testing.T) (url, grpcAddr string) {
	t.Helper()
	dir := t.TempDir()
	config := `
cosid:
  namespace: clients
  stores:
    db: { type: memory }
  generators:
    order: { strategy: segment, store: db }
  serve: { store: db }
`
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
	return srv.URL, m[1]
}
