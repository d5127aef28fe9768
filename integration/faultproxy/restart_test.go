package faultproxy_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

// ownServer is a database server that a test starts itself, on a temporary data
// directory and a free loopback port, so that it can crash it and start it again
// under load without disturbing the servers other tests share.
type ownServer struct {
	t    *testing.T
	args []string            // the server's command line
	cred *syscall.Credential // whom it runs as; nil: this process's user
	up   func(context.Context) error
	cmd  *exec.Cmd
}

// start starts the server and waits until it answers.
func (s *ownServer) start() {
	s.t.Helper()
	cmd := exec.Command(s.args[0], s.args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	out, err := os.CreateTemp("", "cosid-own-server-*.log")
	if err != nil {
		s.t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting %s: %v", s.args[0], err)
	}
	s.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := s.up(ctx)
		if err == nil {
			os.Remove(out.Name())
			return
		}
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(out.Name())
			s.t.Fatalf("%s did not answer within 30 s: %v\n%s", s.args[0], err, log)
		case <-tick.C:
		}
	}
}

// crash kills the server and its child processes with SIGKILL, as a crash of the
// machine's processes would, and reaps it. The server is stopped first, so that it
// forks no child while they are killed, and crash returns once they are all gone:
// a PostgreSQL started while one of them still holds its shared memory refuses to
// start. (PostgreSQL's children make sessions of their own, so a process group
// would not hold them.)
func (s *ownServer) crash() {
	if s.cmd == nil {
		return
	}
	pid := s.cmd.Process.Pid
	syscall.Kill(pid, syscall.SIGSTOP)
	s.until(func() bool { st, _ := procStat(pid); return st.state == "T" })
	var kids []int
	for _, c := range processes() {
		if st, ok := procStat(c); ok && st.ppid == pid {
			kids = append(kids, c)
			syscall.Kill(c, syscall.SIGKILL)
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	s.cmd.Wait()
	s.cmd = nil
	for _, c := range kids {
		// Gone, or a zombie, which holds no memory: nobody may reap the orphans.
		s.until(func() bool { st, ok := procStat(c); return !ok || st.state == "Z" })
	}
}

// until polls cond until it holds, failing the test after 10 s.
func (s *ownServer) until(cond func() bool) {
	s.t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			s.t.Fatalf("%s: a process did not stop or go within 10 s", s.args[0])
		}
	}
}

// processes returns the ids of the processes in /proc.
func processes() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stat is what the harness reads of /proc/<pid>/stat.
type stat struct {
	state string // R, S, T (stopped), Z (zombie), …
	ppid  int
}

// procStat reads pid's state and parent from /proc, or reports false when pid is
// gone.
func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	// pid (comm) state ppid …, where comm may hold spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return stat{state: f[0], ppid: ppid}, true
}

// freePort returns a loopback port that nothing listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// program returns the path of a server's program, skipping t when it is missing,
// or failing it when servers are required.
func program(t *testing.T, paths ...string) string {
	t.Helper()
	for _, p := range paths {
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
	}
	if os.Getenv(testenv.Require) == "1" {
		t.Fatalf("none of %q is installed and %s=1", paths, testenv.Require)
	}
	t.Skipf("none of %q is installed", paths)
	return ""
}

// ownRedis starts a Redis that keeps every acknowledged write (AOF, fsync always),
// as the durable Redis of .ci/run does, and returns it and its address.
func ownRedis(t *testing.T) (*ownServer, string) {
	testenv.Server(t, testenv.RedisDurable) // the family of tests this machine runs
	bin := program(t, "redis-server")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	_, port, _ := net.SplitHostPort(addr)
	s := &ownServer{t: t, args: []string{bin, "--bind", "127.0.0.1", "--port", port, "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--dir", t.TempDir()}}
	s.up = func(ctx context.Context) error {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		return c.Ping(ctx).Err()
	}
	return s, addr
}

// ownPostgres starts a PostgreSQL cluster of the test's own, made with initdb, and
// returns it and its DSN. As root, the cluster runs as the user postgres, since
// PostgreSQL refuses to run as root.
func ownPostgres(t *testing.T) (*ownServer, string) {
	testenv.Server(t, testenv.Postgres) // the family of tests this machine runs
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	var initdb, postgres []string
	for _, dir := range matches {
		initdb, postgres = append(initdb, filepath.Join(dir, "initdb")), append(postgres, filepath.Join(dir, "postgres"))
	}
	initdbBin := program(t, append(initdb, "initdb")...)
	postgresBin := program(t, append(postgres, "postgres")...)
	dir, err := os.MkdirTemp("", "cosid-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs a user of its own: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(initdbBin, "-D", data, "-U", "postgres", "--auth=trust", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	s := &ownServer{t: t, cred: cred, args: []string{postgresBin, "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir, "-c", "fsync=on",
		"-c", "max_connections=100"}}
	s.up = func(ctx context.Context) error {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	}
	return s, dsn
}

// TestHarness_ServerRestart runs two processes, each with a segment, a periodic and
// a Snowflake generator, on a server of the test's own that it kills with SIGKILL
// and starts again every few seconds: no value twice (the server keeps what it
// acknowledged), every error of Next an ErrUnavailable (or a lost lease), and each
// generator makes ids again after the last restart.
func TestHarness_ServerRestart(t *testing.T) {
	secs := seconds(t)
	for _, tc := range []struct {
		name string
		own  func(*testing.T) (*ownServer, string) // the server, and its address or DSN
	}{
		{"redis", ownRedis},
		{"postgresql", ownPostgres},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, v := tc.own(t)
			s.start()
			t.Cleanup(s.crash)
			b := backendNamed(t, tc.name)
			addr, err := b.split(v)
			if err != nil {
				t.Fatal(err)
			}
			j := newJob(b.typ, b.settings(v, addr, "restart"), "restart", b.ttl)
			twoProcesses(t, j, secs, "restarts", func(end time.Time) (restarts int) {
				// Down for a moment, then for longer than a reservation may wait
				// and a Snowflake lease lasts.
				downs := []time.Duration{100 * time.Millisecond, 3 * time.Second, time.Second}
				for time.Now().Before(end) {
					time.Sleep(3 * time.Second) // sleep-ok: let the children make ids a while
					s.crash()
					time.Sleep(downs[restarts%len(downs)]) // sleep-ok: the real server's downtime
					s.start()
					restarts++
				}
				return restarts
			})
		})
	}
}
