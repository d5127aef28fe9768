package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// helmOnce builds the pinned helm of tools/go.mod once per test binary.
var helmOnce = sync.OnceValues(func() (string, error) {
	cmd := exec.Command("go", "tool", "-modfile=tools/go.mod", "-n", "helm")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
})

// helmBin returns the path of the pinned helm (helm.sh/helm/v4 of tools/go.mod),
// building it on first use.
func helmBin(t *testing.T) string {
	t.Helper()
	path, err := helmOnce()
	if err != nil {
		t.Fatalf("building helm (GOWORK=off go tool -modfile=deploy/tools/go.mod -n helm): %v", err)
	}
	return path
}

// chartDir is the chart, from this package's directory.
var chartDir = filepath.Join("helm", "cosid")

// helm runs the pinned helm with args and returns its standard output, failing t
// with its standard error when it fails.
func helm(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := helmRun(t, args...)
	if err != nil {
		t.Fatalf("helm %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// helmRun runs the pinned helm with args, in a HOME of its own so that no
// repository or plugin of the user's takes part.
func helmRun(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(helmBin(t), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+home+"/cache",
		"HELM_CONFIG_HOME="+home+"/config", "HELM_DATA_HOME="+home+"/data")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w\n%s%s", err, stderr.Bytes(), out)
	}
	return out, nil
}
