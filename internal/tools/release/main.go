// Command release makes a release of the modules of the repository, as
// docs/modules.md describes, in a clone of the checkout's HEAD; it never changes
// the checkout. scripts/release runs it:
//
//	scripts/release vX.Y.Z [--proxy DIR] [--clone DIR]
//
// The modules are those of go.work (internal/tools/internal/repo): each released
// one is tagged at vX.Y.Z (the core vX.Y.Z, a nested module DIR/vX.Y.Z), in the order
// of their requires. The modules that require none of the repository (the core,
// proto) are tagged at HEAD. Then, one level at a time, one commit makes the modules
// whose requires are all tagged require them at vX.Y.Z, with `go mod tidy` of each
// against a file proxy of the modules tagged so far (no proxy has them yet), and
// those modules are tagged on it. The modules that are not released follow in the
// last commit. go.work's replace block follows each commit (docs/modules.md).
//
// At the end it prints the `git push` that publishes the release, from the clone.
// With --proxy it writes DIR as a module proxy (GOPROXY=file://DIR) that holds
// every released module at vX.Y.Z, zipped from its tag as a proxy would zip it: the
// release rehearsal (integration/release) installs from it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/cosid-go/cosid/internal/tools/internal/repo"
	"github.com/cosid-go/cosid/internal/tools/internal/run"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "scripts/release: %v\nusage: scripts/release vX.Y.Z [--proxy DIR] [--clone DIR]\n", err)
		os.Exit(2)
	}
	if err := release(ctx, opts, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scripts/release:", err)
		os.Exit(1)
	}
}

type options struct {
	version string
	src     string // the checkout
	proxy   string // where to write the file proxy, or ""
	clone   string // where to make the clone, or "" for a new temporary directory
}

// parseArgs reads the version and the flags in any order.
func parseArgs(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.src, "C", ".", "the checkout to release (its HEAD)")
	fs.StringVar(&o.proxy, "proxy", "", "also write `DIR` as a file module proxy of the release")
	fs.StringVar(&o.clone, "clone", "", "make the release in `DIR`, which must not exist or be empty (default: a new temporary directory)")
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return o, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return o, errors.New("give one version")
	}
	o.version = pos[0]
	return o, nil
}

// checkVersion refuses a version that is not a release's.
func checkVersion(v string) error {
	switch {
	case !semver.IsValid(v):
		return fmt.Errorf("%q is not a semantic version vMAJOR.MINOR.PATCH[-PRERELEASE]", v)
	case semver.Canonical(v) != v:
		return fmt.Errorf("%q: give the version in full, vMAJOR.MINOR.PATCH[-PRERELEASE], without +build", v)
	case module.IsPseudoVersion(v):
		return fmt.Errorf("%q is a pseudo-version, not a release", v)
	case semver.Major(v) != "v0" && semver.Major(v) != "v1":
		return fmt.Errorf("%q: a major version above v1 needs the module paths to end in /%s, which they do not", v, semver.Major(v))
	}
	return nil
}

// source is what the release needs to know of the checkout.
type source struct {
	root, branch, head string
	tags               map[string]bool
	lastRelease        string // the highest core tag vX.Y.Z in HEAD's history, or ""
	name, email        string // the checkout's git identity, if it has one
	remote             string // the URL its branch pushes to, or ""
}

// checkSource refuses a checkout that is not in a clean, known state.
func checkSource(ctx context.Context, dir string) (*source, error) {
	git := run.Cmd{Dir: dir}
	top, err := git.Output(ctx, "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git checkout: %w", dir, err)
	}
	s := &source{root: top, tags: map[string]bool{}}
	git.Dir = top
	if s.branch, err = git.Output(ctx, "git", "symbolic-ref", "-q", "--short", "HEAD"); err != nil {
		return nil, errors.New("HEAD is detached: check out the branch that the release commits go on")
	}
	if s.head, err = git.Output(ctx, "git", "rev-parse", "--verify", "HEAD^{commit}"); err != nil {
		return nil, err
	}
	if shallow, _ := git.Output(ctx, "git", "rev-parse", "--is-shallow-repository"); shallow == "true" {
		return nil, errors.New("the checkout is a shallow clone, which may lack the tags of the last release: git fetch --unshallow --tags")
	}
	for _, name := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-merge", "rebase-apply"} {
		p, err := git.Output(ctx, "git", "rev-parse", "--git-path", name)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		if _, err := os.Stat(p); err == nil {
			return nil, fmt.Errorf("the checkout is in the middle of an operation (%s exists): finish or abort it", name)
		}
	}
	// --no-optional-locks: not even the index's stat cache is written.
	status, err := git.Output(ctx, "git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	if status != "" {
		lines := strings.Split(status, "\n")
		if len(lines) > 10 {
			lines = append(lines[:10], "…")
		}
		return nil, fmt.Errorf("the checkout has changes that are not committed; a release is made of HEAD, so commit or stash them:\n%s", strings.Join(lines, "\n"))
	}
	tags, err := git.Output(ctx, "git", "tag", "--list")
	if err != nil {
		return nil, err
	}
	for _, t := range strings.Fields(tags) {
		s.tags[t] = true
	}
	merged, err := git.Output(ctx, "git", "tag", "--merged", "HEAD", "--list", "v*")
	if err != nil {
		return nil, err
	}
	for _, t := range strings.Fields(merged) {
		if semver.IsValid(t) && semver.Canonical(t) == t && semver.Compare(t, s.lastRelease) > 0 {
			s.lastRelease = t
		}
	}
	s.name, _ = git.Output(ctx, "git", "config", "user.name")
	s.email, _ = git.Output(ctx, "git", "config", "user.email")
	if remote, _ := git.Output(ctx, "git", "config", "branch."+s.branch+".remote"); remote != "" {
		s.remote, _ = git.Output(ctx, "git", "remote", "get-url", remote)
	} else {
		s.remote, _ = git.Output(ctx, "git", "remote", "get-url", "origin")
	}
	return s, nil
}

// step is one commit of the release: the modules whose requires it moves, and those
// of them it tags.
type step struct {
	level int
	move  []*repo.Module // the modules whose requires of the repository's modules become the version
	tag   []*repo.Module // the released modules tagged on the step's commit
}

// plan orders the release: a step a level of the requires, and the modules not
// released with the last step whose requires allow it.
func plan(r *repo.Repo) []*step {
	top := 0
	for _, m := range r.Released() {
		top = max(top, m.Level)
	}
	byLevel := map[int]*step{}
	at := func(level int) *step {
		if byLevel[level] == nil {
			byLevel[level] = &step{level: level}
		}
		return byLevel[level]
	}
	for _, m := range r.Work() {
		switch {
		case m.Kind == repo.Released:
			s := at(m.Level)
			s.tag = append(s.tag, m)
			if len(m.Requires) > 0 {
				s.move = append(s.move, m)
			}
		case len(m.Requires) > 0:
			s := at(max(m.Level, top))
			s.move = append(s.move, m)
		}
	}
	var steps []*step
	for _, s := range byLevel {
		steps = append(steps, s)
	}
	slices.SortFunc(steps, func(a, b *step) int { return a.level - b.level })
	return steps
}

// dirs names modules by their directories.
func dirs(ms []*repo.Module) string {
	var ds []string
	for _, m := range ms {
		ds = append(ds, m.Dir)
	}
	return strings.Join(ds, ", ")
}

func release(ctx context.Context, o options, stdout, stderr io.Writer) error {
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "== %s (%.1fs)\n", fmt.Sprintf(format, args...), time.Since(start).Seconds())
	}
	v := o.version
	if err := checkVersion(v); err != nil {
		return err
	}
	src, err := checkSource(ctx, o.src)
	if err != nil {
		return err
	}
	if src.lastRelease != "" && semver.Compare(v, src.lastRelease) <= 0 {
		return fmt.Errorf("%s is not above %s, the last release in HEAD's history", v, src.lastRelease)
	}
	for _, p := range []*string{&o.proxy, &o.clone} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}

	// The clone: the checkout's HEAD on a branch of the same name.
	clone := o.clone
	if clone == "" {
		if clone, err = os.MkdirTemp("", "cosid-release-"); err != nil {
			return err
		}
	} else if entries, err := os.ReadDir(clone); err == nil && len(entries) > 0 {
		return fmt.Errorf("--clone %s: not empty", clone)
	}
	logf("cloning %s (%s at %.12s) into %s", src.root, src.branch, src.head, clone)
	if err := (run.Cmd{Dir: src.root}).Run(ctx, "git", "clone", "--quiet", "--no-checkout", src.root, clone); err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			fmt.Fprintf(stderr, "scripts/release: the clone %s is left as the failure left it; nothing was pushed, and %s is unchanged\n", clone, src.root)
		}
	}()
	git := run.Cmd{Dir: clone}
	if err := git.Run(ctx, "git", "checkout", "--quiet", "-B", src.branch, src.head); err != nil {
		return err
	}
	for key, value := range map[string]string{"user.name": src.name, "user.email": src.email} {
		if value != "" {
			if err := git.Run(ctx, "git", "config", key, value); err != nil {
				return err
			}
		}
	}
	if _, err := git.Output(ctx, "git", "var", "GIT_COMMITTER_IDENT"); err != nil {
		return fmt.Errorf("git has no identity to commit and tag with (git config user.name and user.email): %w", err)
	}

	r, err := repo.Load(clone)
	if err != nil {
		return err
	}
	if err := checkRequires(r, src, v); err != nil {
		return err
	}
	steps := plan(r)
	var tags []string
	for _, s := range steps {
		for _, m := range s.tag {
			tags = append(tags, m.Tag(v))
		}
	}
	for _, t := range tags {
		if src.tags[t] {
			return fmt.Errorf("the tag %s exists already", t)
		}
	}

	// The go commands of the steps: without the workspace, the modules tagged so far
	// from a file proxy first, and no checksum database asked for them.
	goEnv := func(name string) (string, error) {
		return (run.Cmd{Dir: src.root}).Output(ctx, "go", "env", name)
	}
	var env struct{ flags, proxy, nosumdb string }
	for name, p := range map[string]*string{"GOFLAGS": &env.flags, "GOPROXY": &env.proxy, "GONOSUMDB": &env.nosumdb} {
		if *p, err = goEnv(name); err != nil {
			return err
		}
	}
	work, err := os.MkdirTemp("", "cosid-release-proxy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	proxy := fileProxy{dir: work}
	var flags []string
	for _, f := range strings.Fields(env.flags) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	tidyEnv := []string{
		"GOWORK=off",
		"GOFLAGS=" + strings.Join(append(flags, "-mod=mod"), " "),
		"GOPROXY=" + proxy.URL() + "," + env.proxy,
		"GONOSUMDB=" + strings.Trim(env.nosumdb+","+repo.ModulePath, ","),
		"GONOPROXY=none", // a GOPRIVATE that names the repository would go to git
	}

	commits := 0
	for _, s := range steps {
		if len(s.move) > 0 {
			logf("%s require %s: go mod tidy of each against the %d modules tagged so far", dirs(s.move), v, countTagged(steps, s))
			for _, m := range s.move {
				dir := filepath.Join(clone, filepath.FromSlash(m.Dir))
				gomod := run.Cmd{Dir: dir, Env: tidyEnv}
				var paths []string
				for p := range m.Requires {
					paths = append(paths, p)
				}
				slices.Sort(paths)
				for _, p := range paths {
					if err := gomod.Run(ctx, "go", "mod", "edit", "-require="+p+"@"+v); err != nil {
						return err
					}
				}
				if err := gomod.Run(ctx, "go", "mod", "tidy"); err != nil {
					return err
				}
			}
			after, err := repo.Load(clone)
			if err != nil {
				return err
			}
			for _, m := range s.move {
				for p, got := range after.Module(m.Path).Requires {
					if got != v {
						return fmt.Errorf("%s/go.mod requires %s %s after go mod tidy, not %s", m.Dir, p, got, v)
					}
				}
			}
			if _, err := after.SyncWork(); err != nil {
				return err
			}
			if err := commit(ctx, git, s, v); err != nil {
				return err
			}
			commits++
		}
		rev, err := git.Output(ctx, "git", "rev-parse", "HEAD")
		if err != nil {
			return err
		}
		for _, m := range s.tag {
			t := m.Tag(v)
			if err := git.Run(ctx, "git", "tag", "-a", "-m", m.Path+" "+v, t, rev); err != nil {
				return err
			}
			if err := proxy.addFromGit(ctx, clone, t, m.Dir, m.Path, v); err != nil {
				return fmt.Errorf("the proxy's %s %s: %w", m.Path, v, err)
			}
		}
		if len(s.tag) > 0 {
			logf("tagged at %.12s: %s", rev, strings.Join(tagNames(s.tag, v), " "))
		}
	}
	if status, err := git.Output(ctx, "git", "status", "--porcelain"); err != nil {
		return err
	} else if status != "" {
		return fmt.Errorf("the clone has changes that no commit took:\n%s", status)
	}
	if o.proxy != "" {
		if err := proxy.copyTo(o.proxy); err != nil {
			return fmt.Errorf("--proxy %s: %w", o.proxy, err)
		}
		logf("wrote the proxy %s (GOPROXY=file://%s)", o.proxy, filepath.ToSlash(o.proxy))
	}
	done = true

	remote := src.remote
	if remote == "" {
		remote = "REMOTE"
	}
	fmt.Fprintf(stdout, "Made %s in %s: %d commit(s) on %.12s (%s), %d tags:\n", v, clone, commits, src.head, src.branch, len(tags))
	for _, s := range steps {
		rev, err := git.Output(ctx, "git", "rev-parse", "--short=12", tagOrHead(s, v)+"^{commit}")
		if err != nil {
			return err
		}
		for _, m := range s.tag {
			fmt.Fprintf(stdout, "  %-32s %s\n", m.Tag(v), rev)
		}
	}
	fmt.Fprintf(stdout, "%s is unchanged. To publish the release, push the branch and the tags from the clone:\n", src.root)
	fmt.Fprintf(stdout, "  git -C %s push %s %s %s\n", clone, remote, src.branch, strings.Join(tags, " "))
	fmt.Fprintf(stdout, "and bring the release commits into the checkout:\n")
	fmt.Fprintf(stdout, "  git -C %s pull --ff-only %s %s\n", src.root, clone, src.branch)
	return nil
}

// tagOrHead names a step's commit: the tag of one of its modules, or HEAD.
func tagOrHead(s *step, v string) string {
	if len(s.tag) > 0 {
		return s.tag[0].Tag(v)
	}
	return "HEAD"
}

func tagNames(ms []*repo.Module, v string) []string {
	var ts []string
	for _, m := range ms {
		ts = append(ts, m.Tag(v))
	}
	return ts
}

// countTagged counts the modules tagged before step s.
func countTagged(steps []*step, s *step) int {
	n := 0
	for _, t := range steps {
		if t.level < s.level {
			n += len(t.tag)
		}
	}
	return n
}

// checkRequires refuses requires of the repository's modules at versions other
// than the placeholder or the last release.
func checkRequires(r *repo.Repo, src *source, v string) error {
	vs := r.RequiredVersions()
	switch {
	case len(vs) > 1:
		return fmt.Errorf("the modules require those of the repository at several versions (%s): a release moves them from one, the placeholder %s or the last release; run scripts/tidy and check the go.mod files", strings.Join(vs, ", "), repo.Placeholder)
	case len(vs) == 0 || vs[0] == repo.Placeholder:
		return nil
	case !semver.IsValid(vs[0]) || semver.Compare(vs[0], v) >= 0:
		return fmt.Errorf("the modules require those of the repository at %s, which %s does not follow", vs[0], v)
	case !src.tags[vs[0]]:
		return fmt.Errorf("the modules require those of the repository at %s, which has no tag here: git fetch --tags", vs[0])
	}
	return nil
}

// commit commits a step's changes, which must be go.mod, go.sum and go.work files
// only.
func commit(ctx context.Context, git run.Cmd, s *step, v string) error {
	status, err := git.Output(ctx, "git", "status", "--porcelain")
	if err != nil {
		return err
	}
	if status == "" {
		return fmt.Errorf("moving the requires of %s changed nothing", dirs(s.move))
	}
	for line := range strings.SplitSeq(status, "\n") {
		file := line[min(3, len(line)):]
		switch filepath.Base(file) {
		case "go.mod", "go.sum", "go.work":
		default:
			return fmt.Errorf("moving the requires changed %s, not a go.mod, go.sum or go.work", file)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "release %s: %s require %s\n\n", v, dirs(s.move), v)
	fmt.Fprintf(&b, "scripts/release: each of these modules requires the modules of the repository\n")
	fmt.Fprintf(&b, "at %s, and `go mod tidy` ran against a proxy of the modules tagged so far.\n", v)
	if len(s.tag) > 0 {
		fmt.Fprintf(&b, "\nTagged on this commit: %s\n", strings.Join(tagNames(s.tag, v), " "))
	}
	if err := git.Run(ctx, "git", "add", "--all"); err != nil {
		return err
	}
	return git.Run(ctx, "git", "commit", "--quiet", "--no-verify", "-m", b.String())
}
