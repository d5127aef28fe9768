package faultproxy_test

import (
	"bufio"
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// seconds is how long each harness test runs its children: COSID_FAULT_SECONDS,
// default 20.
func seconds(t *testing.T) float64 {
	s := os.Getenv("COSID_FAULT_SECONDS")
	if s == "" {
		return 20
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 10 {
		t.Fatalf("COSID_FAULT_SECONDS=%q: want a number of seconds ≥ 10", s)
	}
	return v
}

// child is a running child process and what it printed.
type child struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  []string
	seen map[string]chan struct{} // by kind, and "" for any: closed at its first id
	done chan struct{}            // closed when the output ends
}

// first waits for the child's first id of kind ("" for any kind) and reports
// whether it came before the child ended.
func (c *child) first(kind string) bool {
	select {
	case <-c.seen[kind]:
		return true
	case <-c.done:
		select {
		case <-c.seen[kind]:
			return true
		default:
			return false
		}
	}
}

// start starts a child process (the test binary again) that does j.
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
	c := &child{cmd: cmd, seen: map[string]chan struct{}{}, done: make(chan struct{})}
	for _, k := range []string{"", kindSegment, kindPeriodic, kindSnowflake} {
		c.seen[k] = make(chan struct{})
	}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.out = append(c.out, line)
			c.mu.Unlock()
			if k := kindOf(line); k != "" {
				for _, ch := range []chan struct{}{c.seen[""], c.seen[k]} {
					select {
					case <-ch:
					default:
						close(ch)
					}
				}
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

// kindOf returns the kind of generator whose ids line shows, or "".
func kindOf(line string) string {
	switch {
	case strings.HasPrefix(line, "R "):
		return kindSegment
	case strings.HasPrefix(line, "P "):
		return kindPeriodic
	case strings.HasPrefix(line, "S "):
		return kindSnowflake
	}
	return ""
}

// tally is what the children printed, checked as it is added: no error that Next
// must not return, and errors that clear.
type tally struct {
	ranges map[string][][2]int64 // by sequence: "" for the segment key, else the period
	stamps []int64
	errs   map[string]int // by kind
	lost   int
	ended  int
}

// add adds a child's output. It fails t for an error Next must not return, and for
// a kind whose last line before END is an error: errors must clear once the faults
// do.
func (tl *tally) add(t *testing.T, who string, out []string) {
	t.Helper()
	if tl.ranges == nil {
		tl.ranges, tl.errs = map[string][][2]int64{}, map[string]int{}
	}
	lastErr, lastID := map[string]int{}, map[string]int{}
	for i, line := range out {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "R":
			tl.ranges[""] = append(tl.ranges[""], [2]int64{atoi(t, f[1]), atoi(t, f[2])})
			lastID[kindSegment] = i
		case len(f) == 4 && f[0] == "P":
			tl.ranges[f[1]] = append(tl.ranges[f[1]], [2]int64{atoi(t, f[2]), atoi(t, f[3])})
			lastID[kindPeriodic] = i
		case len(f) == 2 && f[0] == "S":
			tl.stamps = append(tl.stamps, atoi(t, f[1]))
			lastID[kindSnowflake] = i
		case len(f) > 1 && f[0] == "ERR":
			tl.errs[f[1]]++
			lastErr[f[1]] = i
		case len(f) > 0 && f[0] == "BAD":
			t.Errorf("%s: Next failed with an error it must not return: %s", who, line)
		case line == "LOST":
			tl.lost++
		case line == "END":
			tl.ended++
		}
	}
	if !slices.Contains(out, "END") {
		return // killed: nothing says its faults were over
	}
	for kind, e := range lastErr {
		if id, ok := lastID[kind]; ok && e > id {
			t.Errorf("%s: its %s errors did not clear: its last %s line is an error: %s", who, kind, kind, out[e])
		}
	}
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("a child printed %q: %v", s, err)
	}
	return v
}

// check fails t when a value was handed out twice, and returns how many ids there
// were.
func (tl *tally) check(t *testing.T) int64 {
	t.Helper()
	var n int64
	for seq, rs := range tl.ranges {
		slices.SortFunc(rs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		for i, r := range rs {
			n += r[1] - r[0] + 1
			if i > 0 && r[0] <= rs[i-1][1] {
				t.Fatalf("sequence %q: value %d handed out twice: runs %v and %v", seq, r[0], rs[i-1], r)
			}
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

// periods returns the periods the periodic ids were of, sorted.
func (tl *tally) periods() []string {
	var ps []string
	for seq := range tl.ranges {
		if seq != "" {
			ps = append(ps, seq)
		}
	}
	slices.Sort(ps)
	return ps
}
