package release_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkSum_HoldsTheWorkspaceGraph: go.work.sum holds every sum that the go
// command needs to load the workspace's module graph and that no module's go.sum
// has. When it lacked some (the k8s.io graph of the deploy module), the README's
// test command added them in workspace mode: the checkout was left with a
// modified go.work.sum, and deploy/image.sh then stamped the image -dirty. The
// test loads the graph, as scripts/tidy does last, in a copy of go.work, go.work.sum
// and the modules' go.mod and go.sum files, and fails on any line it adds.
func TestWorkSum_HoldsTheWorkspaceGraph(t *testing.T) {
	root := repoRoot(t)
	work := t.TempDir()
	copyFile := func(rel string) {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if os.IsNotExist(err) && filepath.Base(rel) == "go.sum" {
			return // a module without requirements
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(work, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("go.work")
	copyFile("go.work.sum")
	for _, m := range workModules(t, root) {
		copyFile(filepath.Join(m.dir, "go.mod"))
		copyFile(filepath.Join(m.dir, "go.sum"))
	}
	cmd := exec.CommandContext(t.Context(), "go", "list", "-m", "all")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(work, "go.work"), "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go list -m all in a copy of the workspace: %v\n%s", err, out)
	}
	before, err := os.ReadFile(filepath.Join(root, "go.work.sum"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(work, "go.work.sum"))
	if err != nil {
		t.Fatal(err)
	}
	had := strings.Split(string(before), "\n")
	var added, dropped []string
	for _, line := range strings.Split(string(after), "\n") {
		if !slices.Contains(had, line) {
			added = append(added, line)
		}
	}
	for _, line := range had {
		if !strings.Contains(string(after), line+"\n") && line != "" {
			dropped = append(dropped, line)
		}
	}
	if len(added) > 0 || len(dropped) > 0 {
		t.Errorf("loading the workspace's module graph changes go.work.sum (%d lines added, %d dropped), as go test and go vet of its modules would in the checkout: run scripts/tidy and commit go.work.sum\nadded:\n%s\ndropped:\n%s",
			len(added), len(dropped), strings.Join(added, "\n"), strings.Join(dropped, "\n"))
	}
}
