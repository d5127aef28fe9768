package servicesim

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSim_FindsPlantedDefects builds the simulation with each defect planted in the
// code under test and expects TestSim to report it, with a replay command, within
// its budget of schedules.
func TestSim_FindsPlantedDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package once for each planted defect")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the planted defects: %v", err)
	}
	for _, tc := range []struct {
		tag, scenario, want string
		budget              string // schedules
	}{
		// httpstore takes the answer of a server of another store (N1).
		{"cosid_plant_anystore", "failover", "duplicate:", "20"},
		// httpstore stays on a server that does not answer (N6).
		{"cosid_plant_stick", "failover", "unavailable with a server of the store answering", "20"},
		// segment's Close gives back its whole last range, what it handed out
		// included (S7), when a key is evicted or idle, or a replica drains.
		{"cosid_plant_giveback", "keyed", "duplicate:", "20"},
		// segment's NextRange joins the rest of the range in use from its start,
		// the ids taken from it included, under streams and single ids.
		{"cosid_plant_join", "streams", "duplicate:", "20"},
		// ReadRanges sends one range more than its client asked for.
		{"cosid_plant_readahead", "streams", "a ReadRanges stream sent range", "20"},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(goCmd, "test", "-count=1", "-tags", tc.tag, "-run", "^TestSim$", ".")
			cmd.Env = append(os.Environ(), "COSID_SIM_SCHEDULES="+tc.budget, "COSID_SIM_SEED=", "COSID_SIM_BASE=1",
				"COSID_SIM_SCENARIO="+tc.scenario, "COSID_SIM_TAGS="+tc.tag)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("TestSim passed with %s planted, within %s schedules:\n%s", tc.tag, tc.budget, out)
			}
			for _, want := range []string{tc.want, "replay: COSID_SIM_SEED=", "-tags " + tc.tag} {
				if !strings.Contains(string(out), want) {
					t.Fatalf("TestSim with %s planted failed without saying %q:\n%s", tc.tag, want, out)
				}
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "broke a promise") || strings.Contains(line, "replay:") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}
