package faultproxy_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// The failover harness: stores that reserve ranges in a loop while a test fails a
// replicated server over, and the checker of what they got. It is independent of
// the topology: a test gives it how a client opens a store and what one failover
// does (stop the replica's stream, kill the primary, promote the replica, move the
// clients), and gets back every range each store was given.
//
// The reservers call Reserve themselves, not a generator: a segment generator
// refuses a range below its own last one, which hides most duplicates from a busy
// process, but not from one that starts after the failover (see
// ../shared/reviews/failover.md). Every acknowledged range counts.
//
// A topology's test: needFailover(t) first; start its servers; then
//
//	logs := failoverLoad(t, open, key, rounds, func(round int) { /* one failover */ })
//	rep := checkRanges(logs)
//	rep.Failovers = rounds
//	noIDTwice(t, rep)        // a configuration the store accepts
//	duplicatesShown(t, rep)  // one it refuses, run with its opt-in
//
// with rounds from failoverRounds(t, def) for the accepted ones.

// failoverSize is the size of every range the reservers reserve.
const failoverSize = 100

// failoverEnv names the variable that sets the failovers of each topology that the
// gate accepts (default 2); the soak sets more.
const failoverEnv = "COSID_FAILOVER_ROUNDS"

// failoverRounds returns COSID_FAILOVER_ROUNDS, or def when it is unset.
func failoverRounds(t *testing.T, def int) int {
	t.Helper()
	s := os.Getenv(failoverEnv)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a number of failovers ≥ 1", failoverEnv, s)
	}
	return n
}

// failoverGate is the variable that runs the failover matrix (.ci/run sets it):
// the tests start replicated servers of their own, which takes a few minutes.
const failoverGate = "COSID_TEST_FAILOVER"

// needFailover skips t unless the failover matrix is to run.
func needFailover(t *testing.T) {
	t.Helper()
	if os.Getenv(failoverGate) != "1" {
		t.Skipf("%s is unset: set it to 1 to run the failover matrix on replicated servers the test starts itself", failoverGate)
	}
}

// asRoot returns the credential of the user a database server runs as when the
// test runs as root (PostgreSQL and MariaDB refuse root), and chowns dir to it.
func asRoot(t *testing.T, name, dir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("running as root, the server needs a user %s of its own: %v", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// runAs runs a program as cred, failing t with its output.
func runAs(t *testing.T, cred *syscall.Credential, prog string, args ...string) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", filepath.Base(prog), args, err, out)
	}
}

// until polls cond every 20 ms until it holds or within passes, failing t with
// what it waited for.
func until(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(within)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond) // sleep-ok: polls a real server
	}
}

// splitPort splits host:port.
func splitPort(addr string) (string, string, error) {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[:i], addr[i+1:], nil
		}
	}
	return "", "", errors.New("no port in " + addr)
}

// opener opens a store the way a client of the topology would (a multi-host DSN,
// a proxy, Sentinel, every endpoint). It is called again after a failed open.
type opener func(ctx context.Context) (store.RangeStore, error)

// reserved is one range a store acknowledged, and when the call returned.
type reserved struct {
	store.Range
	At time.Time
}

// reserverLog is what one reserver did: every range it was given, and its errors.
type reserverLog struct {
	Who          string
	Began, Ended time.Time
	OK           []reserved
	Errors       int
	FirstErrors  []string // the first few distinct error texts, for the test's log
}

// reserver reserves ranges of one key from one store of its own, in a loop, until
// it is stopped.
type reserver struct {
	stopc chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	log   reserverLog
	first chan struct{} // closed at its first acknowledged range
}

// startReserver opens a store with open (again after each failure) and reserves
// failoverSize ids of key every 10 ms (100 ms after a failure) until stop. The
// store is closed when it stops.
func startReserver(t *testing.T, who string, open opener, key string) *reserver {
	t.Helper()
	r := &reserver{stopc: make(chan struct{}), done: make(chan struct{}), first: make(chan struct{}),
		log: reserverLog{Who: who, Began: time.Now()}}
	go r.run(open, key)
	t.Cleanup(func() { r.stop() })
	return r
}

func (r *reserver) run(open opener, key string) {
	defer close(r.done)
	var st store.RangeStore
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	for {
		pace := 10 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var err error
		if st == nil {
			st, err = open(ctx)
			if err != nil {
				st = nil
				err = fmt.Errorf("open: %w", err)
			}
		}
		if st != nil {
			var rg store.Range
			rg, err = st.Reserve(ctx, key, failoverSize, 0)
			if err == nil {
				r.ok(rg)
			}
		}
		cancel()
		if err != nil {
			r.failed(err)
			pace = 100 * time.Millisecond
		}
		select {
		case <-r.stopc:
			return
		case <-time.After(pace): // sleep-ok: the load's own pace, not a wait for behaviour
		}
	}
}

func (r *reserver) ok(rg store.Range) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.OK = append(r.log.OK, reserved{Range: rg, At: time.Now()})
	if len(r.log.OK) == 1 {
		close(r.first)
	}
}

func (r *reserver) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.Errors++
	msg := err.Error()
	if len(r.log.FirstErrors) < 5 && !slices.Contains(r.log.FirstErrors, msg) {
		r.log.FirstErrors = append(r.log.FirstErrors, msg)
	}
}

// oks returns how many ranges the reserver has been given so far.
func (r *reserver) oks() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log.OK)
}

// stop stops the reserver (once) and returns its log.
func (r *reserver) stop() reserverLog {
	select {
	case <-r.stopc:
	default:
		close(r.stopc)
	}
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log.Ended.IsZero() {
		r.log.Ended = time.Now()
	}
	return r.log
}

// warmRanges is how many ranges each reserver is given before each failover and
// after the last, so that the failover comes under load and the load goes on.
const warmRanges = 10

// warm waits (at most 20 s) until each of rs was given warmRanges more ranges.
func warm(t *testing.T, rs []*reserver, when string) {
	t.Helper()
	counts := make([]int, len(rs))
	for i, r := range rs {
		counts[i] = r.oks()
	}
	end := time.Now().Add(20 * time.Second)
	for i, r := range rs {
		if !r.waitOK(counts[i]+warmRanges-1, time.Until(end)) {
			t.Logf("%s got fewer than %d ranges within 20 s %s", r.log.Who, warmRanges, when)
		}
	}
}

// highest returns the end of the highest range any of rs was given.
func highest(rs []*reserver) int64 {
	var h int64
	for _, r := range rs {
		r.mu.Lock()
		for _, o := range r.log.OK {
			h = max(h, o.End)
		}
		r.mu.Unlock()
	}
	return h
}

// waitOK waits until the reserver has been given more than n ranges, or until
// within has passed, and reports whether it has.
func (r *reserver) waitOK(n int, within time.Duration) bool {
	end := time.Now().Add(within)
	for r.oks() <= n {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // sleep-ok: polls real stores on real servers
	}
	return true
}

// failoverLoad runs two reservers ("p1", "p2") on key through rounds failovers:
// once both have a range, it calls failover(round), which returns once the new
// primary takes writes, and starts a late reserver ("late1", …) as a process
// started after the failover would be. Before each failover, and after the last,
// every reserver is given warmRanges ranges. After each failover it waits (at most
// 30 s) until the key passed the highest range acknowledged when failover
// returned, so that every range a forgetful store gives again is given, and until
// every reserver was given a range; after the last, it stops them all and returns
// their logs.
func failoverLoad(t *testing.T, open opener, key string, rounds int, failover func(round int)) []reserverLog {
	t.Helper()
	rs := []*reserver{startReserver(t, "p1", open, key), startReserver(t, "p2", open, key)}
	for _, r := range rs {
		if !r.waitOK(0, 30*time.Second) {
			t.Fatalf("%s got no range within 30 s before the first failover: %q", r.log.Who, r.stop().FirstErrors)
		}
	}
	for round := range rounds {
		warm(t, rs, "before failover "+strconv.Itoa(round+1))
		failover(round)
		high := highest(rs)
		counts := make([]int, len(rs))
		for i, r := range rs {
			counts[i] = r.oks()
		}
		rs = append(rs, startReserver(t, fmt.Sprintf("late%d", round+1), open, key))
		counts = append(counts, 0)
		// The key passes the highest range acknowledged before the failover, so
		// that a store that forgot some hands all of them out again; and every
		// reserver gets a range after the failover.
		end := time.Now().Add(30 * time.Second)
		for highest(rs) <= high && time.Now().Before(end) {
			time.Sleep(10 * time.Millisecond) // sleep-ok: polls real stores on real servers
		}
		for i, r := range rs {
			if !r.waitOK(counts[i], time.Until(end)) {
				t.Logf("%s got no range within 30 s after failover %d", r.log.Who, round+1)
			}
		}
	}
	warm(t, rs, "after the last failover")
	logs := make([]reserverLog, len(rs))
	for i, r := range rs {
		logs[i] = r.stop()
	}
	return logs
}

// failoverReport is what the checker found in the logs of one or more loads.
type failoverReport struct {
	Failovers int
	Ranges    int   // acknowledged ranges, of every reserver
	IDsTwice  int64 // distinct ids that lie in two or more acknowledged ranges
	// LongestGap is the longest time one reserver went without an acknowledged
	// range while it ran (from its start for a late one), and GapWho is which.
	LongestGap  time.Duration
	GapWho      string
	Errors      int
	FirstErrors []string
}

// checkRanges merges the logs of reservers on one key and counts the ids held
// twice and the longest gap.
func checkRanges(logs []reserverLog) failoverReport {
	var rep failoverReport
	var all []store.Range
	for _, l := range logs {
		rep.Ranges += len(l.OK)
		rep.Errors += l.Errors
		for _, e := range l.FirstErrors {
			if len(rep.FirstErrors) < 8 && !slices.Contains(rep.FirstErrors, e) {
				rep.FirstErrors = append(rep.FirstErrors, e)
			}
		}
		last := l.Began
		for _, r := range l.OK {
			all = append(all, r.Range)
			if g := r.At.Sub(last); g > rep.LongestGap {
				rep.LongestGap, rep.GapWho = g, l.Who
			}
			last = r.At
		}
		if g := l.Ended.Sub(last); g > rep.LongestGap {
			rep.LongestGap, rep.GapWho = g, l.Who
		}
	}
	rep.IDsTwice = idsTwice(all)
	return rep
}

// idsTwice returns how many distinct values lie in two or more of the half-open
// ranges rs.
func idsTwice(rs []store.Range) int64 {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b store.Range) int { return cmp.Compare(a.Start, b.Start) })
	var n int64
	var covered, twice int64 // every value below covered lies in a range seen; below twice, already counted
	for i, r := range rs {
		if i == 0 {
			covered, twice = r.End, r.Start
			continue
		}
		if lo, hi := max(r.Start, twice), min(r.End, covered); hi > lo {
			n += hi - lo
			twice = hi
		}
		covered = max(covered, r.End)
	}
	return n
}

// add adds another load's report (of another key) to rep.
func (rep *failoverReport) add(o failoverReport) {
	rep.Failovers += o.Failovers
	rep.Ranges += o.Ranges
	rep.IDsTwice += o.IDsTwice
	rep.Errors += o.Errors
	if o.LongestGap > rep.LongestGap {
		rep.LongestGap, rep.GapWho = o.LongestGap, o.GapWho
	}
	for _, e := range o.FirstErrors {
		if len(rep.FirstErrors) < 8 && !slices.Contains(rep.FirstErrors, e) {
			rep.FirstErrors = append(rep.FirstErrors, e)
		}
	}
}

// String is the report's line for the test log and the docs.
func (rep failoverReport) String() string {
	return fmt.Sprintf("%d failovers, %d ranges, %d ids held twice, longest time without a range %v (%s), %d errors",
		rep.Failovers, rep.Ranges, rep.IDsTwice, rep.LongestGap.Round(time.Millisecond), rep.GapWho, rep.Errors)
}

// errorSample is the report's first error texts, one a line, for a failure's message.
func (rep failoverReport) errorSample() string {
	return strings.Join(rep.FirstErrors, "\n\t")
}

// noIDTwice fails t unless rep shows no id held twice, and logs its figures: the
// check of a configuration the gate accepts.
func noIDTwice(t *testing.T, rep failoverReport) {
	t.Helper()
	t.Logf("accepted: %v; errors seen: \n\t%s", rep, rep.errorSample())
	if rep.IDsTwice != 0 {
		t.Errorf("%d ids were held twice after %d failovers of a configuration the gate accepts", rep.IDsTwice, rep.Failovers)
	}
	if rep.Ranges == 0 {
		t.Errorf("no range at all: the load did not run")
	}
}

// duplicatesShown fails t unless rep shows ids held twice, and logs its figures:
// the proof that a configuration the gate refuses must be refused.
func duplicatesShown(t *testing.T, rep failoverReport) {
	t.Helper()
	t.Logf("refused, run with the opt-in: %v", rep)
	if rep.IDsTwice == 0 {
		t.Errorf("no id was held twice after %d failovers of a configuration the gate refuses: the run did not show why it must (errors: %s)", rep.Failovers, rep.errorSample())
	}
}

// TestCheckRanges_CountsIDsHeldTwiceAndTheLongestGap checks the checker on ranges
// whose overlaps and gaps are known.
func TestCheckRanges_CountsIDsHeldTwiceAndTheLongestGap(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	rg := func(start, end int64, ms int) reserved { return reserved{store.Range{Start: start, End: end}, at(ms)} }
	for _, tc := range []struct {
		name  string
		logs  []reserverLog
		twice int64
		gap   time.Duration
		who   string
	}{
		{"disjoint", []reserverLog{
			{Who: "a", Began: at(0), Ended: at(100), OK: []reserved{rg(0, 100, 10), rg(200, 300, 30)}},
			{Who: "b", Began: at(0), Ended: at(100), OK: []reserved{rg(100, 200, 20)}},
		}, 0, 80 * time.Millisecond, "b"},
		{"one range twice across stores", []reserverLog{
			{Who: "a", Began: at(0), Ended: at(50), OK: []reserved{rg(0, 100, 10), rg(100, 200, 20)}},
			{Who: "late", Began: at(40), Ended: at(50), OK: []reserved{rg(100, 200, 45)}},
		}, 100, 30 * time.Millisecond, "a"},
		{"three copies count once", []reserverLog{
			{Who: "a", Began: at(0), Ended: at(10), OK: []reserved{rg(0, 100, 1), rg(0, 100, 2), rg(0, 100, 3)}},
		}, 100, 7 * time.Millisecond, "a"},
		{"partial overlaps", []reserverLog{
			{Who: "a", Began: at(0), Ended: at(10), OK: []reserved{rg(0, 100, 1), rg(50, 150, 2), rg(120, 300, 3), rg(400, 500, 4)}},
		}, 80, 6 * time.Millisecond, "a"},
		{"a range inside another", []reserverLog{
			{Who: "a", Began: at(0), Ended: at(4), OK: []reserved{rg(0, 1000, 1), rg(100, 200, 2), rg(300, 400, 3), rg(350, 1200, 4)}},
		}, 800, time.Millisecond, "a"},
		{"no range: the whole run is a gap", []reserverLog{
			{Who: "a", Began: at(0), Ended: at(500), Errors: 3},
		}, 0, 500 * time.Millisecond, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := checkRanges(tc.logs)
			if rep.IDsTwice != tc.twice || rep.LongestGap != tc.gap || rep.GapWho != tc.who {
				t.Errorf("ids twice %d, longest gap %v (%s); want %d, %v (%s)", rep.IDsTwice, rep.LongestGap, rep.GapWho, tc.twice, tc.gap, tc.who)
			}
		})
	}
}

// rewindStore is a store whose failover forgets the last reservations, as a
// promoted asynchronous replica does: it keeps one counter per key and shares it
// between every "client".
type rewindStore struct {
	mu   sync.Mutex
	next int64
}

func (s *rewindStore) Reserve(_ context.Context, _ string, size, _ int64) (store.Range, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next += size
	return store.Range{Start: s.next - size, End: s.next}, nil
}

func (s *rewindStore) Seal(context.Context, string) error { return errors.ErrUnsupported }

func (s *rewindStore) Close() error { return nil }

func (s *rewindStore) value() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// TestFailoverLoad_CheckerSeesWhatAFailoverForgets runs the harness's load on a
// store whose "failover" keeps every reservation, and on one whose failover
// forgets the last ten: the first has no id twice, the second each id given again.
func TestFailoverLoad_CheckerSeesWhatAFailoverForgets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rewind int64
	}{{"keeps every reservation", 0}, {"forgets ten ranges", 10 * failoverSize}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &rewindStore{}
			open := func(context.Context) (store.RangeStore, error) { return s, nil }
			var before int64
			logs := failoverLoad(t, open, "k", min(failoverRounds(t, 1), 1), func(int) {
				for s.value() < 2*tc.rewind {
					time.Sleep(time.Millisecond) // sleep-ok: lets the load reserve more than the rewind
				}
				s.mu.Lock()
				before = s.next
				s.next -= tc.rewind
				s.mu.Unlock()
			})
			// Given again: from the rewound value to where the load stopped, up to
			// the value before the rewind.
			want := min(before, s.value()) - (before - tc.rewind)
			var rep failoverReport
			rep.add(checkRanges(logs))
			rep.Failovers = 1
			if len(logs) != 3 || rep.IDsTwice != want {
				t.Fatalf("%d reservers, %v; want 3 and %d ids twice", len(logs), rep, want)
			}
			if tc.rewind == 0 {
				noIDTwice(t, rep)
			} else {
				duplicatesShown(t, rep)
			}
		})
	}
}
