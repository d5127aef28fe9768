package faultproxy_test

import (
	"bufio"
	"cmp"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/faultproxy"
	"github.com/cosid-go/cosid/internal/testenv"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// server is a database the harness runs against, through a proxy.
type server struct {
	name, driver, env string
	// via returns the server's DSN with its address replaced by addr, and the
	// address it replaced.
	via func(dsn, addr string) (string, string)
}

var servers = []server{
	{"postgresql", "pgx", testenv.Postgres, func(dsn, addr string) (string, string) {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn, ""
		}
		target := u.Host
		u.Host = addr
		return u.String(), target
	}},
	{"mariadb", "mysql", testenv.MySQL, func(dsn, addr string) (string, string) {
		m := regexp.MustCompile(`tcp\(([^)]*)\)`).FindStringSubmatch(dsn)
		if m == nil {
			return dsn, ""
		}
		return strings.Replace(dsn, m[0], "tcp("+addr+")", 1), m[1]
	}},
}

// seconds is how long each harness test runs its children: COSID_FAULT_SECONDS,
// default 20.
func seconds(t *testing.T) float64 {
	s := os.Getenv("COSID_FAULT_SECONDS")
	if s == "" {
		return 20
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 5 {
		t.Fatalf("COSID_FAULT_SECONDS=%q: want a number of seconds ≥ 5", s)
	}
	return v
}

// setup returns a proxy in front of s and a job template whose DSN goes through it,
// on tables of this run's own.
func setup(t *testing.T, s server) (*faultproxy.Proxy, job) {
	t.Helper()
	dsn := testenv.Server(t, s.env)
	_, target := s.via(dsn, "")
	if target == "" {
		t.Fatalf("%s=%q: no address in it", s.env, dsn)
	}
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	proxied, _ := s.via(dsn, p.Addr())
	suffix := strings.ToLower(rand.Text()[:10])
	tables := sqlstore.Tables{Range: "f_range_" + suffix, Slot: "f_slot_" + suffix, Namespace: "f_ns_" + suffix}
	db, err := sql.Open(s.driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range []string{tables.Range, tables.Slot, tables.Namespace} {
			db.Exec("drop table if exists " + n)
		}
		db.Close()
	})
	return p, job{Driver: s.driver, DSN: proxied, Tables: tables, Key: "fault/" + suffix}
}

// child is a running child process and what it printed.
type child struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  []string
	seen chan struct{} // closed at the first id
	done chan struct{} // closed when the output ends
}

func start(t *testing.T, j job) *child {
	t.Helper()
	spec, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, seen: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.out = append(c.out, line)
			c.mu.Unlock()
			if first && (strings.HasPrefix(line, "R ") || strings.HasPrefix(line, "S ")) {
				first = false
				close(c.seen)
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return c
}

// wait waits for the child to end and returns its output.
func (c *child) wait() []string {
	<-c.done
	c.cmd.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out
}

// tally is what the children printed, checked: no id twice, no error Next must not
// return.
type tally struct {
	ranges [][2]int64
	stamps []int64
	errs   int
	lost   int
	ended  int
}

func (tl *tally) add(t *testing.T, who string, out []string) {
	t.Helper()
	lastErr, lastID := -1, -1
	for i, line := range out {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "R":
			a, _ := strconv.ParseInt(f[1], 10, 64)
			b, _ := strconv.ParseInt(f[2], 10, 64)
			tl.ranges = append(tl.ranges, [2]int64{a, b})
			lastID = i
		case len(f) == 2 && f[0] == "S":
			v, _ := strconv.ParseInt(f[1], 10, 64)
			tl.stamps = append(tl.stamps, v)
			lastID = i
		case len(f) > 0 && f[0] == "ERR":
			tl.errs++
			lastErr = i
		case len(f) > 0 && f[0] == "BAD":
			t.Errorf("%s: Next failed with an error it must not return: %s", who, line)
		case line == "LOST":
			tl.lost++
		case line == "END":
			tl.ended++
		}
	}
	if lastErr > lastID && lastID >= 0 && slices.Contains(out, "END") {
		t.Errorf("%s: its errors did not clear: the last line before END is an error: %s", who, out[lastErr])
	}
}

// check fails t when a value was handed out twice.
func (tl *tally) check(t *testing.T) int64 {
	t.Helper()
	slices.SortFunc(tl.ranges, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var n int64
	for i, r := range tl.ranges {
		n += r[1] - r[0] + 1
		if i > 0 && r[0] <= tl.ranges[i-1][1] {
			t.Fatalf("value %d handed out twice: runs %v and %v", r[0], tl.ranges[i-1], r)
		}
	}
	slices.Sort(tl.stamps)
	for i := 1; i < len(tl.stamps); i++ {
		if tl.stamps[i] == tl.stamps[i-1] {
			t.Fatalf("Snowflake id %d handed out twice", tl.stamps[i])
		}
	}
	return n + int64(len(tl.stamps))
}

// eachServer runs body on each server, in parallel, with a proxy in front of it and
// a job on tables of its own, for COSID_FAULT_SECONDS (default 20).
func eachServer(t *testing.T, body func(t *testing.T, p *faultproxy.Proxy, j job, secs float64)) {
	secs := seconds(t)
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			p, j := setup(t, s)
			body(t, p, j, secs)
		})
	}
}

// TestHarness_TwoProcesses_NetworkFaults runs two processes that make segment ids
// of one key through a fault proxy that delays, holds (longer than the store's
// timeout) and resets their connections, then lets them be: no value twice, every
// error an ErrUnavailable, and each process makes ids again after its last error.
func TestHarness_TwoProcesses_NetworkFaults(t *testing.T) {
	eachServer(t, func(t *testing.T, p *faultproxy.Proxy, j job, secs float64) {
		j.Kind, j.Seconds = "segment", secs
		kids := []*child{start(t, j), start(t, j)}
		faults := []struct {
			mode faultproxy.Mode
			d    time.Duration
		}{
			{faultproxy.Delay, 50 * time.Millisecond}, {faultproxy.Hold, 0}, {faultproxy.Pass, 0},
			{faultproxy.Reset, 0}, {faultproxy.Pass, 0}, {faultproxy.Hold, 0}, {faultproxy.Reset, 0},
		}
		// The faults take the run but its last eight seconds, which are for
		// recovering: a generator backs off for up to 5 s after failures.
		end := time.Now().Add(time.Duration(secs*float64(time.Second)) - 8*time.Second)
		applied := 0
		for i := 0; time.Now().Before(end); i++ {
			f := faults[i%len(faults)]
			p.Set(f.mode, f.d)
			applied++
			time.Sleep(1500 * time.Millisecond) // how long each fault lasts
		}
		p.Set(faultproxy.Pass, 0)
		var tl tally
		for i, k := range kids {
			tl.add(t, fmt.Sprintf("child %d", i), k.wait())
		}
		n := tl.check(t)
		if tl.ended != 2 {
			t.Fatalf("%d of 2 children ran to their end", tl.ended)
		}
		t.Logf("%d faults; %d ids from 2 processes, none twice; %d errors, all ErrUnavailable", applied, n, tl.errs)
	})
}

// TestHarness_KillLoop_Segment kills a process that makes segment ids with SIGKILL
// and starts another, again and again, beside a second process that runs
// throughout: no value is handed out twice.
func TestHarness_KillLoop_Segment(t *testing.T) {
	eachServer(t, func(t *testing.T, _ *faultproxy.Proxy, j job, secs float64) {
		j.Kind, j.Seconds = "segment", secs
		steady := start(t, j)
		var tl tally
		j.Seconds = secs / 2
		kills := 0
		for end := time.Now().Add(time.Duration(secs*float64(time.Second)) / 2); time.Now().Before(end); {
			k := start(t, j)
			select {
			case <-k.seen:
			case <-k.done:
			}
			time.Sleep(time.Duration(100+kills*37%400) * time.Millisecond) // let it make ids a while
			k.cmd.Process.Signal(syscall.SIGKILL)
			tl.add(t, fmt.Sprintf("killed child %d", kills), k.wait())
			kills++
		}
		tl.add(t, "steady child", steady.wait())
		n := tl.check(t)
		t.Logf("%d processes killed with SIGKILL; %d ids, none twice", kills, n)
	})
}

// TestHarness_SigstopPastLease_Snowflake stops a Snowflake process holding the
// namespace's only slot with SIGSTOP for longer than its lease, lets a second
// process take the slot, and continues the first: it must stop with its lease lost,
// and no id is handed out twice.
func TestHarness_SigstopPastLease_Snowflake(t *testing.T) {
	eachServer(t, func(t *testing.T, _ *faultproxy.Proxy, j job, secs float64) {
		j.Kind, j.Seconds, j.Owner = "snowflake", secs/2, "first"
		first := start(t, j)
		select {
		case <-first.seen:
		case <-first.done:
			t.Fatalf("the first process ended before it made an id: %q", first.wait())
		}
		first.cmd.Process.Signal(syscall.SIGSTOP)
		j.Owner = "second"
		second := start(t, j)
		select {
		case <-second.seen:
		case <-second.done:
			first.cmd.Process.Signal(syscall.SIGCONT)
			t.Fatalf("the second process never got the slot: %q", second.wait())
		}
		first.cmd.Process.Signal(syscall.SIGCONT)
		var tl tally
		tl.add(t, "first", first.wait())
		if tl.lost != 1 {
			t.Errorf("the first process, stopped past its lease, did not report its lease lost")
		}
		tl.add(t, "second", second.wait())
		n := tl.check(t)
		t.Logf("%d Snowflake ids from a stopped and a new owner of one slot, none twice", n)
	})
}
