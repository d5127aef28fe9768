package servicesim

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

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

// scenarios are the simulation's scenarios, by name.
var scenarios = map[string]func(seed uint64, steps int) Result{
	"failover": Failover,
	"keyed":    Keyed,
	"streams":  Streams,
}

// TestSim plays COSID_SIM_SCHEDULES schedules of each scenario (default 10; 3 under
// -short), from COSID_SIM_BASE (default 1), or only the seed COSID_SIM_SEED, in
// synctest bubbles, and fails on the first broken promise with the command that
// replays it.
func TestSim(t *testing.T) {
	n := envInt(t, "COSID_SIM_SCHEDULES", 10)
	if testing.Short() {
		n = min(n, 3)
	}
	first := envInt(t, "COSID_SIM_BASE", 1)
	if os.Getenv("COSID_SIM_SEED") != "" {
		first, n = envInt(t, "COSID_SIM_SEED", 0), 1
	}
	steps := int(envInt(t, "COSID_SIM_STEPS", 60))
	only := os.Getenv("COSID_SIM_SCENARIO")
	for name, play := range scenarios {
		if only != "" && name != only {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var ids, calls, errs, faults int64
			for seed := first; seed < first+n; seed++ {
				var r Result
				synctest.Test(t, func(*testing.T) { r = play(seed, steps) })
				if r.Failure != "" {
					t.Fatalf("simulation %s seed %d broke a promise: %s\nlast actions:\n  %s\nreplay: COSID_SIM_SEED=%d COSID_SIM_SCENARIO=%s go test%s -run '^TestSim$' ./integration/servicesim",
						name, seed, r.Failure, strings.Join(r.Log, "\n  "), seed, name, plantFlag())
				}
				ids, calls, errs, faults = ids+r.IDs, calls+r.Calls, errs+r.Errors, faults+r.Faults
			}
			t.Logf("%s: %d schedules of %d steps, %d calls (%d failed), %d faults, %d ids checked, no broken promise",
				name, n, steps, calls, errs, faults, ids)
		})
	}
}

// plantFlag is the -tags flag of the defects planted in this build, for the
// replay command.
func plantFlag() string {
	if tags := os.Getenv("COSID_SIM_TAGS"); tags != "" {
		return " -tags " + tags
	}
	return ""
}
