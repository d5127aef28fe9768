package release_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
)

// rehearsalVersion returns the rehearsal's release: v0.0.1-rehearsal before the
// first release, the next patch's -rehearsal after the last release in HEAD's
// history (a release must be above it). No proxy but the rehearsal's own has it.
func rehearsalVersion(t *testing.T, c command) string {
	t.Helper()
	last := "v0.0.0"
	for _, tag := range strings.Fields(c.run("git", "tag", "--merged", "HEAD", "--list", "v*")) {
		if semver.IsValid(tag) && semver.Canonical(tag) == tag && semver.Compare(tag, last) > 0 {
			last = tag
		}
	}
	mmp := strings.Split(strings.TrimPrefix(semver.Canonical(strings.TrimSuffix(last, semver.Prerelease(last))), "v"), ".")
	patch, err := strconv.Atoi(mmp[2])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("v%s.%s.%d-rehearsal", mmp[0], mmp[1], patch+1)
}

// placeholder is the version at which the modules require each other before the
// first release.
const placeholder = "v0.0.0-00010101000000-000000000000"

// mustRelease are the modules a release must tag whatever go.work says: the core,
// the stores, metrics, proto (server requires it), server and the CLI.
var mustRelease = []string{".", "store/redisstore", "store/etcdstore", "store/zkstore", "store/mongostore", "metrics", "proto", "server", "cmd/cosid"}

// TestReleaseRehearsal makes the release v0.0.1-rehearsal (after a release, the next
// patch's) of a clone of HEAD (not of the working tree: commit what it should see)
// into a proxy of its own, and installs from it as a user would:
//
//   - scripts/release in the clone: the checkout is unchanged, every released module
//     of go.work is tagged on a commit whose go.mod requires the repository's modules
//     at the version only, the proxy serves each at its tag, every go.sum names the
//     proxy's hashes, and the released workspace works with no proxy;
//   - a new user module: go get of the core and store/redisstore at the version, a
//     program on SQLite that hands out ids, no placeholder version in its go list -m
//     all; go install of cmd/cosid at the version, whose `cosid version` prints it and
//     whose `cosid next` hands out ids;
//   - scripts/apicheck in the released clone: the API of the release passes, an
//     exported function removed fails and is named, one added passes.
//
// The go commands of the release and the user have a module cache of their own (the
// usual one's downloads serve as a proxy before the usual proxy), so that the fake
// version never enters the usual module cache. The user's builds take the flags of
// .ci/run's build of the image's cosid (CGO_ENABLED=0, -trimpath, -tags timetzdata),
// which has put every third-party package in the build cache by then; what is
// rehearsed does not depend on them. It runs with COSID_TEST_RELEASE=1, which
// .ci/run sets.
func TestReleaseRehearsal(t *testing.T) {
	if os.Getenv("COSID_TEST_RELEASE") != "1" {
		t.Skip("COSID_TEST_RELEASE=1 runs the release rehearsal (.ci/run sets it): a release of HEAD into a proxy of its own, and go get and go install from it")
	}
	start := time.Now()
	t.Cleanup(func() { t.Logf("the rehearsal took %.1fs", time.Since(start).Seconds()) })
	// Bounded: nine minutes, and never past go test's own deadline.
	deadline := time.Now().Add(9 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-20*time.Second).Before(deadline) {
		deadline = d.Add(-20 * time.Second)
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	root := repoRoot(t)
	work := t.TempDir()
	c := command{t: t, ctx: ctx, dir: root, timeout: 5 * time.Minute, env: []string{
		"GIT_AUTHOR_NAME=cosid rehearsal", "GIT_AUTHOR_EMAIL=rehearsal@cosid.invalid",
		"GIT_COMMITTER_NAME=cosid rehearsal", "GIT_COMMITTER_EMAIL=rehearsal@cosid.invalid",
		"GOTOOLCHAIN=local",
	}}
	head := c.run("git", "rev-parse", "HEAD")
	if c.run("git", "rev-parse", "--is-shallow-repository") == "true" {
		t.Fatal("the repository is a shallow clone, and a release needs the history and tags of the last one: git fetch --unshallow --tags")
	}
	version := rehearsalVersion(t, c)
	t.Logf("the rehearsal's release: %s", version)
	sharedCache := c.run("go", "env", "GOMODCACHE")
	usualProxy := c.run("go", "env", "GOPROXY")
	shared := "file://" + filepath.ToSlash(filepath.Join(sharedCache, "cache", "download"))

	// A clone of HEAD, with an exported function that the API check removes below.
	src := filepath.Join(work, "src")
	c.run("git", "clone", "--quiet", "--no-checkout", root, src)
	g := c.in(src)
	g.run("git", "checkout", "--quiet", "-B", "rehearsal", head)
	writeFile(t, filepath.Join(src, "rehearsal_api.go"), "package cosid\n\n// RehearsalRemoved is in the release rehearsal's release only: the API check\n// names it when it is gone.\nfunc RehearsalRemoved() {}\n")
	g.run("git", "add", "rehearsal_api.go")
	g.run("git", "commit", "--quiet", "-m", "rehearsal: an exported function to remove")
	srcHead := g.run("git", "rev-parse", "HEAD")
	srcTags := g.run("git", "tag")

	modules := workModules(t, src)
	var released []workModule
	for _, m := range modules {
		if m.released {
			released = append(released, m)
		}
	}
	for _, dir := range mustRelease {
		if !slices.ContainsFunc(released, func(m workModule) bool { return m.dir == dir }) {
			t.Errorf("go.work does not release %s", dir)
		}
	}

	// The release, into a module cache of its own.
	proxyDir, clone := filepath.Join(work, "proxy"), filepath.Join(work, "release")
	own := []string{
		"GOMODCACHE=" + filepath.Join(work, "modcache"),
		"GOPATH=" + filepath.Join(work, "gopath"),
		"GOFLAGS=-modcacherw",
		"GONOSUMDB=" + modulePath,
		"GOWORK=",
	}
	out := c.in(src, append(own, "GOPROXY="+shared+","+usualProxy)...).run(filepath.Join(src, "scripts", "release"), version, "--proxy", proxyDir, "--clone", clone)
	t.Logf("scripts/release:\n%s", out)

	t.Run("checkout unchanged", func(t *testing.T) {
		g := c.in(src)
		if got := g.run("git", "rev-parse", "HEAD"); got != srcHead {
			t.Errorf("HEAD moved to %s", got)
		}
		if tags := g.run("git", "tag"); tags != srcTags {
			t.Errorf("the checkout's tags were\n%s\nand are\n%s", srcTags, tags)
		}
		if status := g.run("git", "status", "--porcelain"); status != "" {
			t.Errorf("changes in the checkout:\n%s", status)
		}
	})

	r := c.in(clone)
	t.Run("tags and proxy", func(t *testing.T) {
		for _, m := range modules {
			tag := m.tag(version)
			commit, err := r.try("git", "rev-parse", "--verify", "-q", "refs/tags/"+tag+"^{commit}")
			if !m.released {
				if err == nil {
					t.Errorf("%s is not released, but tagged %s", m.dir, tag)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: no tag %s", m.dir, tag)
				continue
			}
			modFile := strings.TrimPrefix(m.dir+"/go.mod", "./")
			mod := r.run("git", "show", tag+":"+modFile) + "\n"
			requires := requiresOf(t, modFile, []byte(mod))
			for p, v := range requires {
				if v != version {
					t.Errorf("%s at %s (%.12s) requires %s %s", modFile, tag, commit, p, v)
				}
			}
			esc, err := module.EscapePath(m.path)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(proxyDir, filepath.FromSlash(esc), "@v")
			if list := readFile(t, filepath.Join(dir, "list")); !slices.Contains(strings.Fields(list), version) {
				t.Errorf("%s: the proxy's list %q lacks %s", m.path, list, version)
			}
			if got := readFile(t, filepath.Join(dir, version+".mod")); got != mod {
				t.Errorf("%s: the proxy's go.mod is not the one of %s:\n%s", m.path, tag, got)
			}
			if _, err := dirhash.HashZip(filepath.Join(dir, version+".zip"), dirhash.Hash1); err != nil {
				t.Errorf("%s: the proxy's zip: %v", m.path, err)
			}
		}
	})

	t.Run("go.mod, go.sum and go.work at the release", func(t *testing.T) {
		sums := proxySums(t, proxyDir, released, version)
		for _, m := range modules {
			for p, v := range requiresOf(t, m.dir+"/go.mod", []byte(readFile(t, filepath.Join(clone, m.dir, "go.mod")))) {
				if v != version {
					t.Errorf("%s/go.mod requires %s %s", m.dir, p, v)
				}
			}
			sum := filepath.Join(clone, m.dir, "go.sum")
			for _, line := range strings.Split(readFile(t, sum), "\n") {
				f := strings.Fields(line)
				if len(f) == 3 && (f[0] == modulePath || strings.HasPrefix(f[0], modulePath+"/")) {
					if want := sums[f[0]+" "+f[1]]; f[2] != want {
						t.Errorf("%s/go.sum: %s, but the proxy's is %q", m.dir, line, want)
					}
				}
			}
		}
		if work := readFile(t, filepath.Join(clone, "go.work")); strings.Contains(work, placeholder) {
			t.Errorf("go.work names the placeholder after the release:\n%s", work)
		}
		// The released workspace, whose modules require a version no proxy has:
		// go.work's replaces stand in for it. The first listing may fetch the
		// go.mod of a module of the graph that this machine's cache lacks (no
		// build needed it yet), never one of the release's, which no proxy has;
		// the second shows that nothing of the release is looked up.
		r.in(clone, "GOFLAGS=").run("go", "list", "-m", "all")
		r.in(clone, "GOPROXY=off", "GOFLAGS=").run("go", "list", "-m", "all")
		r.in(clone, "GOPROXY=off", "GOFLAGS=").run("go", "list", "-deps", "./cmd/cosid")
	})
	if t.Failed() {
		t.FailNow()
	}

	// A user of the release: the proxy, then the usual module cache's downloads,
	// then the usual proxy.
	user := append(own,
		"GOPROXY=file://"+filepath.ToSlash(proxyDir)+","+shared+","+usualProxy,
		"GOFLAGS=-mod=mod -modcacherw -trimpath -tags=timetzdata",
		"CGO_ENABLED=0",
		"GOWORK=off",
	)
	t.Run("go get and a program", func(t *testing.T) {
		app := filepath.Join(work, "app")
		u := c.in(app, user...)
		mkdir(t, app)
		u.run("go", "mod", "init", "example.com/rehearsal")
		sqlite := requireOf(t, filepath.Join(clone, "cmd", "cosid", "go.mod"), "modernc.org/sqlite")
		u.run("go", "get", modulePath+"@"+version, modulePath+"/store/redisstore@"+version, "modernc.org/sqlite@"+sqlite)
		writeFile(t, filepath.Join(app, "main.go"), userProgram)
		writeFile(t, filepath.Join(app, "cosid.yaml"), userConfig)
		u.run("go", "mod", "tidy")
		u.run("go", "build", "-o", "app", ".")
		ids(t, u.run(filepath.Join(app, "app")), 3)
		all := u.run("go", "list", "-m", "all")
		if strings.Contains(all, placeholder) {
			t.Errorf("go list -m all names the placeholder:\n%s", all)
		}
		for _, p := range []string{modulePath, modulePath + "/store/redisstore"} {
			if !slices.Contains(strings.Split(all, "\n"), p+" "+version) {
				t.Errorf("go list -m all lacks %s %s:\n%s", p, version, all)
			}
		}
	})

	t.Run("go install cmd/cosid", func(t *testing.T) {
		dir := filepath.Join(work, "cli")
		mkdir(t, dir)
		u := c.in(dir, user...)
		u.run("go", "install", modulePath+"/cmd/cosid@"+version)
		bin := filepath.Join(work, "gopath", "bin", "cosid")
		if v := u.run(bin, "version"); !strings.HasPrefix(v, "cosid "+version+" ") {
			t.Errorf("cosid version: %q, want cosid %s …", v, version)
		}
		ids(t, u.run(bin, "next", "order", "-n", "3"), 3)
	})

	t.Run("apicheck", func(t *testing.T) {
		a := c.in(clone)
		apicheck := filepath.Join(clone, "scripts", "apicheck")
		out := a.run(apicheck)
		for _, m := range released {
			if !slices.Contains(strings.Split(out, "\n"), m.path+": the API of "+m.tag(version)) {
				t.Errorf("apicheck does not hold %s to %s:\n%s", m.path, m.tag(version), out)
			}
		}
		if err := os.Remove(filepath.Join(clone, "rehearsal_api.go")); err != nil {
			t.Fatal(err)
		}
		out, err := a.try(apicheck, ".")
		if err == nil || !strings.Contains(out, "INCOMPATIBLE: RehearsalRemoved: removed") {
			t.Errorf("apicheck with RehearsalRemoved removed: %v\n%s", err, out)
		}
		a.run("git", "checkout", "--", "rehearsal_api.go")
		writeFile(t, filepath.Join(clone, "rehearsal_added.go"), "package cosid\n\n// RehearsalAdded is new since the rehearsal's release.\nfunc RehearsalAdded() {}\n")
		if out := a.run(apicheck, "."); !strings.Contains(out, "compatible: RehearsalAdded: added") {
			t.Errorf("apicheck with RehearsalAdded:\n%s", out)
		}
	})
}

// userProgram is a user's program on the release: the core on SQLite, and the
// Redis store linked.
const userProgram = `package main

import (
	"context"
	"fmt"
	"log"

	"github.com/cosid-go/cosid"
	_ "github.com/cosid-go/cosid/store/redisstore"
	_ "modernc.org/sqlite"
)

func main() {
	ctx := context.Background()
	rt, err := cosid.Load(ctx, "cosid.yaml")
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	for range 3 {
		id, err := rt.Next(ctx, "order")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id)
	}
}
`

const userConfig = `cosid:
  namespace: rehearsal
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db }
`

// ids checks that out is n ids, one a line, each above the one before.
func ids(t *testing.T, out string, n int) {
	t.Helper()
	var got []int64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		id, err := strconv.ParseInt(strings.TrimSpace(sc.Text()), 10, 64)
		if err != nil {
			t.Errorf("not an id: %q in\n%s", sc.Text(), out)
			return
		}
		if len(got) > 0 && id <= got[len(got)-1] {
			t.Errorf("ids not increasing:\n%s", out)
		}
		got = append(got, id)
	}
	if len(got) != n {
		t.Errorf("%d ids, want %d:\n%s", len(got), n, out)
	}
}

// proxySums returns the go.sum hashes of the released modules as the proxy serves
// them: "PATH VERSION" and "PATH VERSION/go.mod" to their h1: hashes.
func proxySums(t *testing.T, proxyDir string, released []workModule, version string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for _, m := range released {
		esc, err := module.EscapePath(m.path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Join(proxyDir, filepath.FromSlash(esc), "@v", version)
		h, err := dirhash.HashZip(base+".zip", dirhash.Hash1)
		if err != nil {
			t.Fatal(err)
		}
		sums[m.path+" "+version] = h
		h, err = dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) { return os.Open(base + ".mod") })
		if err != nil {
			t.Fatal(err)
		}
		sums[m.path+" "+version+"/go.mod"] = h
	}
	return sums
}

// requiresOf returns the requires of the repository's modules in a go.mod.
func requiresOf(t *testing.T, name string, data []byte) map[string]string {
	t.Helper()
	mf, err := modfile.Parse(name, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := map[string]string{}
	for _, r := range mf.Require {
		if r.Mod.Path == modulePath || strings.HasPrefix(r.Mod.Path, modulePath+"/") {
			rs[r.Mod.Path] = r.Mod.Version
		}
	}
	return rs
}

// requireOf returns the version of path that the go.mod at file requires.
func requireOf(t *testing.T, file, path string) string {
	t.Helper()
	mf, err := modfile.Parse(file, []byte(readFile(t, file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mf.Require {
		if r.Mod.Path == path {
			return r.Mod.Version
		}
	}
	t.Fatalf("%s does not require %s", file, path)
	return ""
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
