// Package release_test holds the tests of the repository's modules as a whole: the
// release rehearsal (scripts/release and scripts/apicheck, then a user's go get
// and go install from the release), the test that every module of go.work is
// where the other lists of modules must name it (docs/modules.md), and the test
// that go.work.sum holds the workspace's module graph.
package release_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
)

// modulePath is the core's path, the prefix of every module of the repository.
const modulePath = "github.com/cosid-go/cosid"

// repoRoot returns the root of the repository, where go.work is.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the working directory")
		}
		dir = parent
	}
}

// workModule is a module of go.work.
type workModule struct {
	dir, path string
	released  bool // its use line does not say "not released"
}

// workModules reads go.work's modules.
func workModules(t *testing.T, root string) []workModule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ms []workModule
	for _, u := range wf.Use {
		dir := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(u.Path)), "./")
		released := true
		for _, c := range u.Syntax.Suffix {
			if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(c.Token, "//")), "not released") {
				released = false
			}
		}
		ms = append(ms, workModule{dir: dir, path: modPath(t, filepath.Join(root, dir)), released: released})
	}
	return ms
}

// modPath reads the module path of the go.mod in dir.
func modPath(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	p := modfile.ModulePath(data)
	if p == "" {
		t.Fatalf("%s/go.mod has no module line", dir)
	}
	return p
}

// tag returns the tag of module m at version v.
func (m workModule) tag(v string) string {
	if m.dir == "." {
		return v
	}
	return m.dir + "/" + v
}

// command runs commands, each bounded by its context and a timeout of its own,
// with the KEY=VALUE pairs of env over the test's environment.
type command struct {
	t       *testing.T
	ctx     context.Context
	dir     string
	env     []string
	timeout time.Duration
}

// in returns c running in dir with env added.
func (c command) in(dir string, env ...string) command {
	c.dir = dir
	c.env = append(append([]string(nil), c.env...), env...)
	return c
}

// try runs name with args and returns its standard output, and its error with
// what it printed.
func (c command) try(name string, args ...string) (string, error) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = c.dir
	cmd.Env = environ(c.env)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	c.t.Logf("%.1fs: %s (in %s)", time.Since(start).Seconds(), strings.Join(cmd.Args, " "), c.dir)
	if err != nil {
		return stdout.String(), fmt.Errorf("%s: %v (%v)\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd.Args, " "), err, context.Cause(ctx), stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// run is try that fails the test on an error.
func (c command) run(name string, args ...string) string {
	c.t.Helper()
	out, err := c.try(name, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// environ is the test's environment with env over it.
func environ(env []string) []string {
	out := os.Environ()
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		kept := out[:0:0]
		for _, o := range out {
			if k, _, _ := strings.Cut(o, "="); k != key {
				kept = append(kept, o)
			}
		}
		out = append(kept, kv)
	}
	return out
}
