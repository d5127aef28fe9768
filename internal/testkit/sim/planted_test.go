package sim

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSim_FindsPlantedDefects builds the simulation with each planted defect and
// expects TestSim to report it, with a replay command, within its budget of
// schedules.
func TestSim_FindsPlantedDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package three more times")
	}
	go_, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the planted defects: %v", err)
	}
	for _, tc := range []struct {
		tag, want string
		budget    string // schedules
	}{
		{"cosid_plant_overlap", "duplicate:", "100"},           // the store hands out an overlapping range once
		{"cosid_plant_floor", "outside the lease:", "100"},     // a Snowflake generator ignores its Floor
		{"cosid_plant_hostzone", "wrong period:", "10"},        // a Periodic computes its keys in the host's zone
		{"cosid_plant_foreign", "above the next floor:", "40"}, // a non-owner's release records now, not the Ceiling (C1)
		{"cosid_plant_nocompare", "duplicate:", "40"},          // a give-back lowers a key without comparing it (S7)
	} {
		t.Run(tc.tag, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(go_, "test", "-count=1", "-tags", tc.tag, "-run", "^TestSim$", ".")
			cmd.Env = append(os.Environ(), "COSID_SIM_SCHEDULES="+tc.budget, "COSID_SIM_SEED=", "COSID_SIM_BASE=1")
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
