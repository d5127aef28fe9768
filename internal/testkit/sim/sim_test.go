package sim

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	_ "time/tzdata"
)

// TestMain puts the process in a zone that none of the simulated generators use, so
// that a periodic key computed in the host's zone shows.
func TestMain(m *testing.M) {
	if loc, err := time.LoadLocation("Pacific/Kiritimati"); err == nil {
		time.Local = loc
	}
	os.Exit(m.Run())
}

func envInt(t *testing.T, name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return v
}

// play runs seed's schedule in a synctest bubble.
func play(t *testing.T, cfg Config, seed uint64) Result {
	var res Result
	synctest.Test(t, func(*testing.T) { res = Run(cfg, seed) })
	return res
}

// report fails t with r's failure, the actions before it and the command that
// replays it; env is what that command needs in its environment.
func report(t *testing.T, r Result, env string) {
	t.Helper()
	if r.Failure == "" {
		return
	}
	t.Fatalf("simulation seed %d (zone %s, %s) broke a promise: %s\nlast actions:\n  %s\nreplay: %s",
		r.Seed, r.Zone, r.Day, r.Failure, strings.Join(r.Log, "\n  "), ReplayCommand(r.Seed, t.Name(), env))
}

// seeds returns the seeds to play: n from first on, or only COSID_SIM_SEED's.
func seeds(t *testing.T, first, n uint64) (uint64, uint64) {
	if os.Getenv("COSID_SIM_SEED") != "" {
		return envInt(t, "COSID_SIM_SEED", 0), 1
	}
	return first, n
}

// TestSim plays COSID_SIM_SCHEDULES schedules (default 40; 5 under -race or -short)
// from seed COSID_SIM_BASE (default 1) on, or only COSID_SIM_SEED's, and checks
// every id of each.
func TestSim(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GapDays, cfg.CheckEarlySeal = true, true
	first, n := seeds(t, envInt(t, "COSID_SIM_BASE", 1), envInt(t, "COSID_SIM_SCHEDULES", 40))
	if testing.Short() || raceEnabled {
		n = min(n, 5) // -race runs the generators some ten times slower
	}
	var total Result
	start := time.Now()
	for seed := first; seed < first+n; seed++ {
		r := play(t, cfg, seed)
		report(t, r, "")
		total.IDs += r.IDs
		total.Errors += r.Errors
		total.Crashes += r.Crashes
		total.Restarts += r.Restarts
		total.Pauses += r.Pauses
		total.ClockSteps += r.ClockSteps
		total.Outages += r.Outages
		total.Foreign += r.Foreign
		total.StoreDown += r.StoreDown
		total.Failed += r.Failed
		total.LostAnswers += r.LostAnswers
		total.Races += r.Races
		total.GivenBack += r.GivenBack
	}
	t.Logf("%d schedules from seed %d: %d ids checked, %d failed calls of Next; %d crashes, %d restarts, %d pauses, %d clock steps, %d outages, %d non-owner releases, %d give-backs raced (%d keys lowered); store: %d calls refused while down, %d failed, %d answers lost after the write; %v",
		n, first, total.IDs, total.Errors, total.Crashes, total.Restarts, total.Pauses, total.ClockSteps, total.Outages, total.Foreign, total.Races, total.GivenBack,
		total.StoreDown, total.Failed, total.LostAnswers, time.Since(start).Round(time.Millisecond))
}

// TestSim_SameSeedSameTrace plays seeds twice and expects the same trace: the same
// actions at the same simulated times, the same ids in the same order, days whose
// midnight does not exist included.
func TestSim_SameSeedSameTrace(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GapDays = true
	cfg.Steps = 30
	n := uint64(40)
	if testing.Short() || raceEnabled {
		n = 4 // the run without -race in .ci/run plays the 40
	}
	first, n := seeds(t, 100, n)
	for seed := first; seed < first+n; seed++ {
		a := play(t, cfg, seed)
		report(t, a, "")
		b := play(t, cfg, seed)
		if a.Trace != b.Trace || a.IDs != b.IDs {
			t.Errorf("seed %d (zone %s): two runs differ: trace %x with %d ids, then %x with %d ids", seed, a.Zone, a.Trace, a.IDs, b.Trace, b.IDs)
		}
	}
}

// TestSim_EarlySeal_GapDays plays schedules across days whose midnight does not
// exist and checks that no period is sealed early.
func TestSim_EarlySeal_GapDays(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GapDays, cfg.CheckEarlySeal = true, true
	n := uint64(20)
	if testing.Short() || raceEnabled {
		n = 3
	}
	first, n := seeds(t, 100, n)
	for seed := first; seed < first+n; seed++ {
		report(t, play(t, cfg, seed), "")
	}
}

func TestDayEnd(t *testing.T) {
	for _, tc := range []struct{ zone, at, end string }{
		{"America/Santiago", "2026-09-05 23:50:00", "2026-09-06 01:00:00"},
		{"America/Havana", "2026-03-07 10:00:00", "2026-03-08 01:00:00"},
		{"America/New_York", "2026-03-08 01:50:00", "2026-03-09 00:00:00"},
		{"Asia/Shanghai", "2026-12-31 23:50:00", "2027-01-01 00:00:00"},
	} {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Fatal(err)
		}
		at, _ := time.ParseInLocation(time.DateTime, tc.at, loc)
		if got := dayEnd(at).Format(time.DateTime); got != tc.end {
			t.Errorf("dayEnd(%s in %s) = %s, want %s", tc.at, tc.zone, got, tc.end)
		}
	}
}
