package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/tools/internal/repo"
	"github.com/cosid-go/cosid/internal/tools/internal/run"
)

const core = repo.ModulePath

// fakeRepo makes a git repository of a core with an internal package, a store on
// it, and a command, all in one go.work, and returns its directory.
func fakeRepo(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.work":                "go 1.26.0\n\nuse (\n\t.\n\t./cmd/x\n\t./store/a\n)\n\nreplace " + core + " " + repo.Placeholder + " => ./\n",
		"go.mod":                 "module " + core + "\n\ngo 1.26.0\n",
		"core.go":                "package cosid\n\nimport \"" + core + "/internal/helper\"\n\n// Next is the core's API.\nfunc Next() int { return helper.One() }\n\n// Removed is removed below.\nfunc Removed() {}\n",
		"internal/helper/one.go": "package helper\n\n// One is internal.\nfunc One() int { return 1 }\n",
		"store/a/go.mod":         "module " + core + "/store/a\n\ngo 1.26.0\n\nrequire " + core + " " + repo.Placeholder + "\n",
		"store/a/a.go":           "package a\n\nimport \"" + core + "\"\n\n// N is the store's.\nfunc N() int { return cosid.Next() }\n",
		"cmd/x/go.mod":           "module " + core + "/cmd/x\n\ngo 1.26.0\n\nrequire " + core + " " + repo.Placeholder + "\n",
		"cmd/x/main.go":          "package main\n\nimport \"" + core + "\"\n\n// Exported is in a command, which has no API.\nfunc Exported() {}\n\nfunc main() { println(cosid.Next()) }\n",
	} {
		write(t, dir, name, content)
	}
	git := run.Cmd{Dir: dir}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "the modules"}} {
		if err := git.Run(ctx, "git", args...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOTOOLCHAIN", "local")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "apicheck-test@example.com")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dir := fakeRepo(t, ctx)
	diff := func(only ...string) (int, string) {
		t.Helper()
		var out strings.Builder
		n, err := check(ctx, dir, only, &out)
		if err != nil {
			t.Fatal(err)
		}
		return n, out.String()
	}

	if n, out := diff(); n != 0 || !strings.Contains(out, "no release tag") {
		t.Errorf("with no tag: %d, %q", n, out)
	}

	// v0.1.0 of the core and the command; the store is new since.
	for _, tag := range []string{"v0.1.0", "cmd/x/v0.1.0"} {
		if err := (run.Cmd{Dir: dir}).Run(ctx, "git", "tag", tag); err != nil {
			t.Fatal(err)
		}
	}
	if n, out := diff(); n != 0 || !strings.Contains(out, core+": the API of v0.1.0") || !strings.Contains(out, core+"/store/a: new since v0.1.0") {
		t.Errorf("unchanged: %d\n%s", n, out)
	}

	// Incompatible: a removed function, named. An internal package and a command
	// have no API to hold to.
	write(t, dir, "core.go", "package cosid\n\nimport \""+core+"/internal/helper\"\n\n// Next is the core's API.\nfunc Next() int { return helper.One() }\n")
	write(t, dir, "internal/helper/one.go", "package helper\n\n// One is internal.\nfunc One() int { return 1 }\n\n// Two is new.\nfunc Two(int) {}\n")
	write(t, dir, "cmd/x/main.go", "package main\n\nimport \""+core+"\"\n\nfunc main() { println(cosid.Next()) }\n")
	if n, out := diff(); n != 1 || !strings.Contains(out, "INCOMPATIBLE: Removed: removed") || strings.Contains(out, "Two") || strings.Contains(out, "Exported") {
		t.Errorf("a function removed: %d\n%s", n, out)
	}

	// Compatible: a function added.
	write(t, dir, "core.go", "package cosid\n\nimport \""+core+"/internal/helper\"\n\n// Next is the core's API.\nfunc Next() int { return helper.One() }\n\n// Removed is removed below.\nfunc Removed() {}\n\n// Added is new.\nfunc Added() {}\n")
	if n, out := diff("."); n != 0 || !strings.Contains(out, "compatible: Added: added") {
		t.Errorf("a function added: %d\n%s", n, out)
	}

	if _, err := check(ctx, dir, []string{"nowhere"}, &strings.Builder{}); err == nil {
		t.Error("a directory of no released module: no error")
	}
}
