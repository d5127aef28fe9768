package deploy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

// podmanGlobal and podmanRun are the flags podman needs on this project's machines:
// runc (Debian's podman has no crun beside it), cgroupfs (no systemd), and limits
// no higher than the sandbox's, which runc would fail to raise.
var (
	podmanGlobal = []string{"--runtime", "runc", "--cgroup-manager", "cgroupfs"}
	podmanRun    = []string{"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}
)

// podman runs podman with the global flags and args, and returns its standard output.
func podman(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "podman", append(slices.Clone(podmanGlobal), args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("podman %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}

func mustPodman(t *testing.T, args ...string) string {
	t.Helper()
	out, err := podman(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// requirePodman skips t without podman, or fails it when COSID_TEST_REQUIRE=1.
func requirePodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err == nil {
		return
	}
	if os.Getenv(testenv.Require) == "1" {
		t.Fatalf("podman is not installed and %s=1: the image test needs it (apt-get install podman runc)", testenv.Require)
	}
	t.Skip("podman is not installed: apt-get install podman runc to build and run the image")
}

// suffix is a name of this run, so that the test's image, volume and container
// meet nobody else's.
func suffix(t *testing.T) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// imageConfig is what the test reads of podman image inspect.
type imageConfig struct {
	Size   int64 `json:"Size"`
	Config struct {
		User       string              `json:"User"`
		WorkingDir string              `json:"WorkingDir"`
		Volumes    map[string]struct{} `json:"Volumes"`
		Entrypoint []string            `json:"Entrypoint"`
		Labels     map[string]string   `json:"Labels"`
	} `json:"Config"`
}

func TestImage_ServeKeepsItsIdsOnTheVolumeAcrossARestart(t *testing.T) {
	requirePodman(t)
	id := suffix(t)
	image, volume, name := "localhost/cosid-imagetest:"+id, "cosid-imagetest-"+id, "cosid-imagetest-"+id
	version := "v0.0.0-imagetest." + id

	build := exec.Command("./image.sh")
	build.Env = append(os.Environ(), "IMAGE="+image, "VERSION="+version, "CONTAINER_CLI=podman")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("deploy/image.sh: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if _, err := podman(t, "rmi", "-f", image); err != nil {
			t.Error(err)
		}
	})

	var inspected []imageConfig
	if err := json.Unmarshal([]byte(mustPodman(t, "image", "inspect", image)), &inspected); err != nil || len(inspected) != 1 {
		t.Fatalf("podman image inspect: %v", err)
	}
	ic := inspected[0]
	t.Logf("image %s: %d bytes (%.1f MiB)", image, ic.Size, float64(ic.Size)/(1<<20))
	if ic.Config.User != "65532:65532" || ic.Config.WorkingDir != "/data" {
		t.Errorf("user %q, working directory %q: want 65532:65532 and /data", ic.Config.User, ic.Config.WorkingDir)
	}
	if _, ok := ic.Config.Volumes["/data"]; !ok {
		t.Errorf("volumes %v, want /data", ic.Config.Volumes)
	}
	if len(ic.Config.Entrypoint) != 1 || filepath.Base(ic.Config.Entrypoint[0]) != "cosid" {
		t.Errorf("entrypoint %q, want cosid", ic.Config.Entrypoint)
	}
	if got := ic.Config.Labels["org.opencontainers.image.version"]; got != version {
		t.Errorf("label org.opencontainers.image.version %q, want %q", got, version)
	}

	run := func(args ...string) []string {
		return append(append([]string{"run"}, podmanRun...), args...)
	}
	if out := mustPodman(t, run("--rm", image, "version")...); !strings.HasPrefix(out, "cosid "+version+" ") {
		t.Errorf("cosid version in the image prints %q, want the stamped %s", out, version)
	}
	// The image's own command serves the embedded default on every address, and so
	// refuses to start until the store API has a token.
	if out, err := podman(t, run("--rm", image)...); err == nil || !strings.Contains(err.Error(), "--token-file") {
		t.Errorf("the image's default command without a token: %q, %v; want a refusal that names --token-file", out, err)
	}

	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil { // the container's user reads it
		t.Fatal(err)
	}
	const token = "imagetest-token"
	config := `cosid:
  namespace: imagetest
  stores:
    db: { type: sql, driver: sqlite, dsn: /data/cosid.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 10, lookahead: 0s }
  serve: { store: db }
`
	for file, text := range map[string]string{"cosid.yaml": config, "token": token + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustPodman(t, "volume", "create", volume)
	t.Cleanup(func() {
		if _, err := podman(t, "volume", "rm", "-f", volume); err != nil {
			t.Error(err)
		}
	})
	mustPodman(t, run("-d", "--name", name, "-v", volume+":/data", "-v", dir+":/etc/cosid:ro", "-p", "127.0.0.1::8686",
		image, "serve", "--config", "/etc/cosid/cosid.yaml", "--addr", "0.0.0.0:8686", "--token-file", "/etc/cosid/token")...)
	t.Cleanup(func() {
		if t.Failed() {
			// cosid logs to its standard error, which podman logs prints on its own.
			logs, _ := exec.Command("podman", append(slices.Clone(podmanGlobal), "logs", name)...).CombinedOutput()
			t.Logf("podman logs %s:\n%s", name, logs)
		}
		if _, err := podman(t, "rm", "-f", "-t", "0", name); err != nil {
			t.Error(err)
		}
	})

	base := waitServing(t, name)
	if code, _ := get(t, base+"/v1/generators/order/next", ""); code != http.StatusUnauthorized {
		t.Errorf("ids without the token: %d, want 401", code)
	}
	first := takeIDs(t, base, token, 25)

	// podman stop sends SIGTERM: cosid finishes, closes its store and exits 0.
	mustPodman(t, "stop", "-t", "30", name)
	if code := mustPodman(t, "inspect", "--format", "{{.State.ExitCode}}", name); code != "0" {
		t.Errorf("cosid exited with %s on SIGTERM, want 0", code)
	}
	mustPodman(t, "start", name)
	base = waitServing(t, name)
	second := takeIDs(t, base, token, 25)
	if last := first[len(first)-1]; second[0] <= last {
		t.Fatalf("after the restart the ids start at %d, not above %d, the last before it: first %v, then %v", second[0], last, first, second)
	}
	t.Logf("ids %d–%d, then after the restart %d–%d", first[0], first[len(first)-1], second[0], second[len(second)-1])

	if os.Geteuid() == 0 { // a rootful podman's volume is a host directory root can read
		mount := mustPodman(t, "volume", "inspect", "--format", "{{.Mountpoint}}", volume)
		fi, err := os.Stat(filepath.Join(mount, "cosid.db"))
		if err != nil {
			t.Fatalf("the volume holds no cosid.db: %v", err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && (st.Uid != 65532 || st.Gid != 65532) {
			t.Errorf("cosid.db on the volume belongs to %d:%d, want the image's 65532:65532", st.Uid, st.Gid)
		}
	}
}

// waitServing waits until the container name answers /healthz and /readyz on its
// published port, and returns the port's URL.
func waitServing(t *testing.T, name string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		if port, err := podman(t, "port", name, "8686/tcp"); err == nil && port != "" {
			base := "http://" + strings.Fields(port)[0]
			if code, _ := get(t, base+"/healthz", ""); code == http.StatusOK {
				code, body := get(t, base+"/readyz", "")
				if code == http.StatusOK {
					return base
				}
				last = fmt.Sprintf("/readyz answers %d %s", code, body)
			}
		}
		if state, _ := podman(t, "inspect", "--format", "{{.State.Status}}", name); state == "exited" {
			t.Fatalf("the container exited before it served")
		}
		time.Sleep(200 * time.Millisecond) // sleep-ok: paces the polls of a real container starting
	}
	t.Fatalf("the container did not serve within 90 s: %s", last)
	return ""
}

// get GETs url with the bearer token (none when empty) and returns the status and body.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(body)
}

// takeIDs takes n ids of the generator order and checks that they increase.
func takeIDs(t *testing.T, base, token string, n int) []int64 {
	t.Helper()
	code, body := get(t, base+"/v1/generators/order/next?count="+strconv.Itoa(n), token)
	if code != http.StatusOK {
		t.Fatalf("GET /v1/generators/order/next: %d %s", code, body)
	}
	var ids []int64
	for line := range strings.FieldsSeq(body) {
		v, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			t.Fatalf("id %q: %v", line, err)
		}
		if len(ids) > 0 && v <= ids[len(ids)-1] {
			t.Fatalf("ids %v then %d: not increasing", ids, v)
		}
		ids = append(ids, v)
	}
	if len(ids) != n {
		t.Fatalf("%d ids, want %d: %q", len(ids), n, body)
	}
	return ids
}
