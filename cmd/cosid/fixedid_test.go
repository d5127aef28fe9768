package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNext_FixedMachineIDRunsRepeatNoID checks issue 19's one-shot runs: the docs'
// own `web-id: { strategy: snowflake, machine-id: 1, layout: javascript }` (a
// one-second Unit) run three times back to back by a built cosid binary, each run a
// process of its own that starts within the Unit the last one stopped in, never
// prints one id twice: each waits out the Unit it started in.
func TestNext_FixedMachineIDRunsRepeatNoID(t *testing.T) {
	t.Parallel()
	bin := builtCLI(t)
	dir := writeConfig(t, "cosid:\n  generators:\n    web-id: { strategy: snowflake, machine-id: 1, layout: javascript }\n")
	seen := map[string]int{}
	for run := range 3 {
		cmd := exec.CommandContext(t.Context(), bin, "next", "web-id", "-n", "3")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("run %d: cosid next web-id -n 3: %v", run, err)
		}
		ids := strings.Fields(string(out))
		if len(ids) != 3 {
			t.Fatalf("run %d printed %q, want 3 ids", run, out)
		}
		for _, id := range ids {
			if prev, dup := seen[id]; dup {
				t.Fatalf("run %d printed %s, which run %d printed too", run, id, prev)
			}
			seen[id] = run
		}
	}
}
