package main

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestNext_CosIDGeneratorWithStateFile runs cosid next of a cosid-generator of a
// fixed machine id with a state file, three times in a row: each run prints ids of
// the format that follow the last run's (its state file, closed at the last id,
// tells the next run where to start), and cosid decode reads one back.
func TestNext_CosIDGeneratorWithStateFile(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, "cosid:\n  generators:\n    trace: { strategy: cosid-generator, machine-id: 7, format: radix36, state-file: trace.state }\n")
	var last string
	for run := range 3 {
		out, errOut, code := runCLI(t, dir, "next", "trace", "-n", "3")
		ids := strings.Fields(out)
		if code != 0 || len(ids) != 3 {
			t.Fatalf("run %d: cosid next trace -n 3 = %q (exit %d, stderr %q), want 3 ids", run, out, code, errOut)
		}
		for _, id := range ids {
			if len(id) != 17 || id <= last {
				t.Fatalf("run %d printed %q after %q: want 17 characters of radix 36, each after the one before", run, id, last)
			}
			last = id
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "trace.state")); err != nil {
		t.Errorf("the state file, relative to the configuration's directory: %v", err)
	}
	out, errOut, code := runCLI(t, dir, "decode", "trace", last)
	if code != 0 || !strings.Contains(out, `"machine":7`) || strings.Contains(out, "value") {
		t.Errorf("cosid decode trace %s = %q (exit %d, stderr %q), want its time, machine 7 and sequence", last, out, code, errOut)
	}
}
