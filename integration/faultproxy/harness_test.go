package faultproxy_test

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
	"github.com/cosid-go/cosid/segment"
)

// allKinds is a job's kinds when a child runs one generator of each.
var allKinds = []string{kindSegment, kindPeriodic, kindSnowflake}

// midnight returns the Shift that makes a periodic clock reach the start of
// 2026-09-06 in periodicZone (a day whose midnight does not exist) at after from
// now, and the two periods around it.
func midnight(t *testing.T, after time.Duration) (time.Duration, []string) {
	t.Helper()
	loc, err := time.LoadLocation(periodicZone)
	if err != nil {
		t.Fatal(err)
	}
	start := segment.YearMonthDay.Start(time.Date(2026, 9, 6, 12, 0, 0, 0, loc))
	return time.Until(start) - after, []string{"20260905", "20260906"}
}

// checkPeriods fails t unless the periodic ids were of exactly the periods want:
// the run crossed the boundary, and no id carries a period its clock never showed.
func checkPeriods(t *testing.T, tl *tally, want []string) {
	t.Helper()
	if got := tl.periods(); !slices.Equal(got, want) {
		t.Errorf("periodic ids of periods %q, want %q", got, want)
	}
}

// TestHarness_TwoProcesses_NetworkFaults runs two processes, each with a segment,
// a periodic and a Snowflake generator on one store, through a fault proxy that
// delays, holds (longer than the store's timeout) and resets their connections,
// then lets them be: no value twice, every error of Next an ErrUnavailable (or, for
// Snowflake, a lost lease, after which the process acquires another), and each
// generator makes ids again after its last error. The periodic clocks cross a
// midnight halfway.
func TestHarness_TwoProcesses_NetworkFaults(t *testing.T) {
	eachBackend(t, func(t *testing.T, p *faultproxy.Proxy, j job, secs float64) {
		faults := []struct {
			mode faultproxy.Mode
			d    time.Duration
		}{
			{faultproxy.Delay, 50 * time.Millisecond}, {faultproxy.Hold, 0}, {faultproxy.Pass, 0},
			{faultproxy.Reset, 0}, {faultproxy.Pass, 0}, {faultproxy.Hold, 0}, {faultproxy.Reset, 0},
		}
		twoProcesses(t, j, secs, "faults", func(end time.Time) (applied int) {
			for i := 0; time.Now().Before(end); i++ {
				f := faults[i%len(faults)]
				p.Set(f.mode, f.d)
				applied++
				time.Sleep(1500 * time.Millisecond) // sleep-ok: how long each fault lasts
			}
			p.Set(faultproxy.Pass, 0)
			return applied
		})
	})
}

// twoProcesses runs two processes of j's store, each with a segment, a periodic and
// a Snowflake generator, for secs; disturb disturbs them until end, ten seconds
// before theirs, and returns how many of what (named by what) it did. It fails t
// for a value handed out twice, an error Next must not return, and a generator
// whose errors did not clear once the disturbance was over. The periodic clocks
// cross a midnight halfway.
func twoProcesses(t *testing.T, j job, secs float64, what string, disturb func(end time.Time) int) {
	t.Helper()
	var periods []string
	j.Kinds, j.Seconds, j.Slots, j.Reacquire = allKinds, secs, 2, true
	j.Shift, periods = midnight(t, time.Duration(secs*float64(time.Second))/2)
	kids := []*child{start(t, j), start(t, j)}
	// The last ten seconds are for recovering: a generator backs off for up to 5 s
	// after failures, and a Snowflake generator that lost its lease waits for a
	// slot to expire.
	done := disturb(time.Now().Add(time.Duration(secs*float64(time.Second)) - 10*time.Second))
	var tl tally
	for i, k := range kids {
		tl.add(t, fmt.Sprintf("child %d", i), k.wait())
	}
	n := tl.check(t)
	if tl.ended != 2 {
		t.Fatalf("%d of 2 children ran to their end", tl.ended)
	}
	checkPeriods(t, &tl, periods)
	t.Logf("%d %s; %d ids (%d Snowflake) from 2 processes, none twice; errors %v, all allowed and cleared; %d leases lost",
		done, what, n, len(tl.stamps), tl.errs, tl.lost)
}

// TestHarness_KillLoop kills a process that makes segment, periodic and Snowflake
// ids with SIGKILL and starts another, again and again, beside a second process
// that runs throughout: no value is handed out twice. Every other new process is
// killed only after its Snowflake generator took over the slot of the one killed
// before it, and the periodic clocks cross a midnight.
func TestHarness_KillLoop(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ *faultproxy.Proxy, j job, secs float64) {
		var periods []string
		loop := time.Duration(secs*float64(time.Second)) / 2
		j.Kinds, j.Seconds, j.Slots = allKinds, secs, 2
		j.Shift, periods = midnight(t, loop/2)
		steady := start(t, j)
		var tl tally
		j.Seconds = secs / 2
		kills, takeovers := 0, 0
		for end := time.Now().Add(loop); time.Now().Before(end); kills++ {
			k := start(t, j)
			kind := ""
			if kills%2 == 1 {
				kind = kindSnowflake
			}
			if k.first(kind) && kind == kindSnowflake {
				takeovers++
			}
			time.Sleep(time.Duration(100+kills*37%400) * time.Millisecond) // sleep-ok: let the child make ids a while
			k.cmd.Process.Signal(syscall.SIGKILL)
			tl.add(t, fmt.Sprintf("killed child %d", kills), k.wait())
		}
		tl.add(t, "steady child", steady.wait())
		n := tl.check(t)
		checkPeriods(t, &tl, periods)
		if takeovers == 0 {
			t.Errorf("no new process took over a killed one's Snowflake slot in %d kills", kills)
		}
		t.Logf("%d processes killed with SIGKILL, %d after taking over a killed one's slot; %d ids (%d Snowflake), none twice",
			kills, takeovers, n, len(tl.stamps))
	})
}

// TestHarness_SigstopPastLease_Snowflake stops a Snowflake process holding the
// namespace's only slot with SIGSTOP for longer than its lease, lets a second
// process take the slot, and continues the first: it must stop with its lease lost,
// and no id is handed out twice.
func TestHarness_SigstopPastLease_Snowflake(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ *faultproxy.Proxy, j job, secs float64) {
		j.Kinds, j.Seconds, j.Owner = []string{kindSnowflake}, secs/2, "first"
		first := start(t, j)
		if !first.first(kindSnowflake) {
			t.Fatalf("the first process ended before it made an id: %q", first.wait())
		}
		first.cmd.Process.Signal(syscall.SIGSTOP)
		j.Owner = "second"
		second := start(t, j)
		took := second.first(kindSnowflake)
		first.cmd.Process.Signal(syscall.SIGCONT)
		if !took {
			t.Fatalf("the second process never got the slot: %q", second.wait())
		}
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
