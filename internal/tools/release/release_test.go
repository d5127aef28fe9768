package main

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/cosid-go/cosid/internal/tools/internal/repo"
	"github.com/cosid-go/cosid/internal/tools/internal/run"
)

const core = repo.ModulePath

// fakeRepo makes a git repository of small modules shaped like this one: a core,
// a store on it, a server on both, a command on the server, and a test module that
// is not released, each importing what it requires. It returns its directory.
func fakeRepo(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.work": "go 1.26.0\n\nuse (\n\t.\n\t./cmd/x\n\t./integration // not released: tests\n\t./server\n\t./store/a\n)\n\n" +
			"replace (\n\t" + core + " " + repo.Placeholder + " => ./\n\t" + core + "/server " + repo.Placeholder + " => ./server\n\t" + core + "/store/a " + repo.Placeholder + " => ./store/a\n)\n",
		"go.mod":                    "module " + core + "\n\ngo 1.26.0\n",
		"core.go":                   "package cosid\n\n// Next is the core's API.\nfunc Next() int { return 1 }\n",
		"LICENSE":                   "the license\n",
		"store/a/go.mod":            "module " + core + "/store/a\n\ngo 1.26.0\n\nrequire " + core + " " + repo.Placeholder + "\n",
		"store/a/a.go":              "package a\n\nimport \"" + core + "\"\n\n// N is the store's.\nfunc N() int { return cosid.Next() }\n",
		"server/go.mod":             "module " + core + "/server\n\ngo 1.26.0\n\nrequire (\n\t" + core + " " + repo.Placeholder + "\n\t" + core + "/store/a " + repo.Placeholder + "\n)\n",
		"server/server.go":          "package server\n\nimport (\n\t\"" + core + "\"\n\t\"" + core + "/store/a\"\n)\n\n// N is the server's.\nfunc N() int { return cosid.Next() + a.N() }\n",
		"cmd/x/go.mod":              "module " + core + "/cmd/x\n\ngo 1.26.0\n\nrequire " + core + "/server " + repo.Placeholder + "\n",
		"cmd/x/main.go":             "package main\n\nimport \"" + core + "/server\"\n\nfunc main() { println(server.N()) }\n",
		"integration/go.mod":        "module " + core + "/integration\n\ngo 1.26.0\n\nrequire " + core + " " + repo.Placeholder + "\n",
		"integration/x_test.go":     "package integration\n\nimport (\n\t\"testing\"\n\n\t\"" + core + "\"\n)\n\nfunc TestX(t *testing.T) { _ = cosid.Next() }\n",
		"internal/tools/go.mod":     "module " + core + "/internal/tools\n\ngo 1.26.0\n",
		"internal/tools/tools.go":   "package tools\n",
		"internal/testdata/ignored": "",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := run.Cmd{Dir: dir}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "the modules"},
	} {
		if err := git.Run(ctx, "git", args...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hermetic keeps the go commands of a test off the network and the shared module
// cache, and gives git an identity.
func hermetic(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-modcacherw")
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOWORK", "")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "release test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "release-test@example.com")
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestRelease_FakeRepository(t *testing.T) {
	hermetic(t)
	ctx := testContext(t)
	src := fakeRepo(t, ctx)
	srcGit := run.Cmd{Dir: src}
	head, err := srcGit.Output(ctx, "git", "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	clone, proxyDir := filepath.Join(t.TempDir(), "clone"), t.TempDir()
	var out strings.Builder
	if err := release(ctx, options{version: "v0.1.0", src: src, proxy: proxyDir, clone: clone}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}

	// The checkout is as it was: its HEAD, no tag, nothing changed.
	if got, _ := srcGit.Output(ctx, "git", "rev-parse", "HEAD"); got != head {
		t.Errorf("the checkout's HEAD moved to %s", got)
	}
	if tags, _ := srcGit.Output(ctx, "git", "tag"); tags != "" {
		t.Errorf("the checkout has tags: %s", tags)
	}
	if status, _ := srcGit.Output(ctx, "git", "status", "--porcelain"); status != "" {
		t.Errorf("the checkout changed:\n%s", status)
	}

	// Each module's tag: at HEAD for the core, then one commit a level, each
	// requiring the repository's modules at v0.1.0 only.
	git := run.Cmd{Dir: clone}
	commitOf := func(tag string) string {
		c, err := git.Output(ctx, "git", "rev-parse", tag+"^{commit}")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := commitOf("v0.1.0"); c != head {
		t.Errorf("v0.1.0 is at %s, want the checkout's HEAD %s", c, head)
	}
	if commitOf("store/a/v0.1.0") != commitOf("HEAD~2") || commitOf("server/v0.1.0") != commitOf("HEAD~1") || commitOf("cmd/x/v0.1.0") != commitOf("HEAD") {
		t.Errorf("the tags are not one commit a level:\n%s", out.String())
	}
	if tags, _ := git.Output(ctx, "git", "tag", "--list", "integration/*"); tags != "" {
		t.Errorf("a module not released is tagged: %s", tags)
	}
	for _, m := range []struct{ dir, path string }{{".", core}, {"store/a", core + "/store/a"}, {"server", core + "/server"}, {"cmd/x", core + "/cmd/x"}} {
		tag := (&repo.Module{Dir: m.dir}).Tag("v0.1.0")
		modFile := strings.TrimPrefix(m.dir+"/go.mod", "./")
		mod, err := git.Bytes(ctx, "git", "show", tag+":"+modFile)
		if err != nil {
			t.Fatal(err)
		}
		mf, err := modfile.Parse(modFile, mod, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range mf.Require {
			if repo.IsRepoPath(r.Mod.Path) && r.Mod.Version != "v0.1.0" {
				t.Errorf("%s: %s requires %s", tag, modFile, r.Mod)
			}
		}

		// The proxy serves the module at its tag.
		esc, _ := module.EscapePath(m.path)
		base := filepath.Join(proxyDir, esc, "@v")
		if list, _ := os.ReadFile(filepath.Join(base, "list")); string(list) != "v0.1.0\n" {
			t.Errorf("%s: list %q", m.path, list)
		}
		if got, _ := os.ReadFile(filepath.Join(base, "v0.1.0.mod")); string(got) != string(mod) {
			t.Errorf("%s: the proxy's go.mod is not the tag's", m.path)
		}
		if _, err := dirhash.HashZip(filepath.Join(base, "v0.1.0.zip"), dirhash.Hash1); err != nil {
			t.Errorf("%s: zip: %v", m.path, err)
		}
		if _, err := os.Stat(filepath.Join(base, "v0.1.0.info")); err != nil {
			t.Error(err)
		}
	}

	// The test module's requires followed in the last commit, and go.work names
	// the released version for the workspace.
	work, _ := os.ReadFile(filepath.Join(clone, "go.work"))
	integ, _ := os.ReadFile(filepath.Join(clone, "integration/go.mod"))
	if strings.Contains(string(work)+string(integ), repo.Placeholder) || !strings.Contains(string(work), core+"/server v0.1.0 => ./server") {
		t.Errorf("after the release:\ngo.work:\n%s\nintegration/go.mod:\n%s", work, integ)
	}
	// A nested module's zip holds its files and the root's LICENSE, not its siblings'.
	esc, _ := module.EscapePath(core + "/server")
	files := zipFiles(t, filepath.Join(proxyDir, esc, "@v", "v0.1.0.zip"))
	if want := []string{core + "/server@v0.1.0/LICENSE", core + "/server@v0.1.0/go.mod", core + "/server@v0.1.0/go.sum", core + "/server@v0.1.0/server.go"}; !slices.Equal(files, want) {
		t.Errorf("the server's zip holds %v, want %v", files, want)
	}
	coreFiles := zipFiles(t, filepath.Join(proxyDir, "github.com/cosid-go/cosid/@v/v0.1.0.zip"))
	if slices.ContainsFunc(coreFiles, func(f string) bool { return strings.Contains(f, "store/a") || strings.Contains(f, "internal/tools") }) {
		t.Errorf("the core's zip holds a nested module's files: %v", coreFiles)
	}
	if !strings.Contains(out.String(), "push") || !strings.Contains(out.String(), "cmd/x/v0.1.0") {
		t.Errorf("no git push printed:\n%s", out.String())
	}

	// The next release moves the requires from v0.1.0, from the released branch.
	next := filepath.Join(t.TempDir(), "next")
	if err := release(ctx, options{version: "v0.1.1", src: clone, clone: next}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	gomod, _ := os.ReadFile(filepath.Join(next, "cmd/x/go.mod"))
	if !strings.Contains(string(gomod), core+"/server v0.1.1") {
		t.Errorf("cmd/x/go.mod after v0.1.1:\n%s", gomod)
	}
	if err := release(ctx, options{version: "v0.1.0", src: next, clone: filepath.Join(t.TempDir(), "again")}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "not above v0.1.1") {
		t.Errorf("releasing v0.1.0 after v0.1.1: %v", err)
	}
}

// zipFiles lists the files of a module zip, sorted.
func zipFiles(t *testing.T, zipFile string) []string {
	t.Helper()
	z, err := zip.OpenReader(zipFile)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var files []string
	for _, f := range z.File {
		files = append(files, f.Name)
	}
	slices.Sort(files)
	return files
}

func TestRelease_RefusesUnknownStates(t *testing.T) {
	hermetic(t)
	ctx := testContext(t)
	for name, tc := range map[string]struct {
		version string
		prepare func(t *testing.T, src string)
		want    string
	}{
		"a bad version":       {"1.0.0", nil, "not a semantic version"},
		"a short version":     {"v1.0", nil, "in full"},
		"build metadata":      {"v1.0.0+x", nil, "in full"},
		"a major version":     {"v2.0.0", nil, "/v2"},
		"a pseudo-version":    {"v0.0.0-20260101000000-abcdefabcdef", nil, "pseudo-version"},
		"a change":            {"v0.1.0", func(t *testing.T, src string) { write(t, src, "core.go", "package cosid\n") }, "not committed"},
		"an untracked file":   {"v0.1.0", func(t *testing.T, src string) { write(t, src, "new.go", "package cosid\n") }, "not committed"},
		"a detached HEAD":     {"v0.1.0", func(t *testing.T, src string) { gitIn(t, ctx, src, "checkout", "-q", "--detach") }, "detached"},
		"a tag that exists":   {"v0.1.0", func(t *testing.T, src string) { gitIn(t, ctx, src, "tag", "server/v0.1.0") }, "exists already"},
		"a lower version":     {"v0.1.0", func(t *testing.T, src string) { gitIn(t, ctx, src, "tag", "v0.2.0") }, "not above v0.2.0"},
		"the same version":    {"v0.1.0", func(t *testing.T, src string) { gitIn(t, ctx, src, "tag", "v0.1.0") }, "not above v0.1.0"},
		"a merge in progress": {"v0.1.0", func(t *testing.T, src string) { write(t, src, ".git/MERGE_HEAD", "x\n") }, "middle of an operation"},
		"mixed requires": {"v0.1.0", func(t *testing.T, src string) {
			write(t, src, "cmd/x/go.mod", "module "+core+"/cmd/x\n\ngo 1.26.0\n\nrequire "+core+"/server v0.0.9\n")
			gitIn(t, ctx, src, "commit", "-q", "-am", "mixed")
		}, "several versions"},
	} {
		t.Run(name, func(t *testing.T) {
			src := fakeRepo(t, ctx)
			if tc.prepare != nil {
				tc.prepare(t, src)
			}
			err := release(ctx, options{version: tc.version, src: src, clone: filepath.Join(t.TempDir(), "clone")}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("release %s: %v, want an error with %q", tc.version, err, tc.want)
			}
		})
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitIn(t *testing.T, ctx context.Context, dir string, args ...string) {
	t.Helper()
	if err := (run.Cmd{Dir: dir}).Run(ctx, "git", args...); err != nil {
		t.Fatal(err)
	}
}

func TestParseArgs(t *testing.T) {
	o, err := parseArgs([]string{"v1.2.3", "--proxy", "p", "-C", "src", "--clone=c"})
	if err != nil || o.version != "v1.2.3" || o.proxy != "p" || o.src != "src" || o.clone != "c" {
		t.Errorf("parseArgs: %+v, %v", o, err)
	}
	for _, args := range [][]string{nil, {"v1.2.3", "v1.2.4"}, {"v1.2.3", "--nope"}} {
		if _, err := parseArgs(args); err == nil {
			t.Errorf("parseArgs(%q): no error", args)
		}
	}
}
