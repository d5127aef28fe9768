// Command apicheck holds the released modules to the API of the last release: it
// compares the exported API of every released module of go.work (or of the modules
// in the directories it is given) in the working tree with that module at its tag of
// the last release in HEAD's history, with golang.org/x/exp/apidiff, prints every
// change, and fails when one is incompatible. With no release tag it says so and
// passes. scripts/apicheck runs it, and .ci/run runs that:
//
//	scripts/apicheck [DIR...]
//
// The old side is the tree of the module's tag (`git archive`, nothing of the checkout
// is touched) loaded in the workspace of its own go.work, so no proxy is asked for any
// module of the repository. Internal packages and commands (package main) have no API
// to hold to and are left out.
package main

import (
	"archive/tar"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/types"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/exp/apidiff"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/packages"

	"github.com/cosid-go/cosid/internal/tools/internal/repo"
	"github.com/cosid-go/cosid/internal/tools/internal/run"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	root := flag.String("C", ".", "the root of the repository")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: scripts/apicheck [DIR...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	incompatible, err := check(ctx, *root, flag.Args(), os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicheck:", err)
		os.Exit(2)
	}
	if incompatible > 0 {
		fmt.Printf("apicheck: %d incompatible change(s) of the API of the last release (above)\n", incompatible)
		os.Exit(1)
	}
}

// check prints the changes and returns the number of incompatible ones.
func check(ctx context.Context, root string, only []string, w io.Writer) (int, error) {
	git := run.Cmd{Dir: root}
	top, err := git.Output(ctx, "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return 0, err
	}
	git.Dir = top
	if shallow, _ := git.Output(ctx, "git", "rev-parse", "--is-shallow-repository"); shallow == "true" {
		return 0, errors.New("a shallow clone may not have the last release in its history: git fetch --unshallow --tags")
	}
	base, err := lastRelease(ctx, git)
	if err != nil {
		return 0, err
	}
	if base == "" {
		fmt.Fprintln(w, "apicheck: no release tag vX.Y.Z in HEAD's history, so no API to hold to")
		return 0, nil
	}
	r, err := repo.Load(top)
	if err != nil {
		return 0, err
	}
	modules := r.Released()
	if len(only) > 0 {
		var picked []*repo.Module
		for _, d := range only {
			d = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(d)), "/")
			i := slices.IndexFunc(modules, func(m *repo.Module) bool { return m.Dir == d })
			if i < 0 {
				return 0, fmt.Errorf("%s is not the directory of a released module", d)
			}
			picked = append(picked, modules[i])
		}
		modules = picked
	}
	fmt.Fprintf(w, "apicheck: the API of %d released module(s) against %s, the last release in HEAD's history\n", len(modules), base)

	tmp, err := os.MkdirTemp("", "cosid-apicheck-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	trees := map[string]string{} // commit → its tree in tmp
	incompatible := 0
	for _, m := range modules {
		tag := m.Tag(base)
		commit, err := git.Output(ctx, "git", "rev-parse", "-q", "--verify", "refs/tags/"+tag+"^{commit}")
		if err != nil {
			fmt.Fprintf(w, "%s: new since %s (no tag %s), so no API to hold to\n", m.Path, base, tag)
			continue
		}
		tree, ok := trees[commit]
		if !ok {
			tree = filepath.Join(tmp, commit[:12])
			if err := extract(ctx, top, commit, tree); err != nil {
				return 0, err
			}
			trees[commit] = tree
		}
		oldMod, err := load(ctx, tree, m)
		if err != nil {
			return 0, fmt.Errorf("%s at %s: %w", m.Path, tag, err)
		}
		newMod, err := load(ctx, top, m)
		if err != nil {
			return 0, fmt.Errorf("%s in the working tree: %w", m.Path, err)
		}
		report := apidiff.ModuleChanges(oldMod, newMod)
		n := 0
		for _, c := range report.Changes {
			if !c.Compatible {
				n++
			}
		}
		incompatible += n
		switch {
		case len(report.Changes) == 0:
			fmt.Fprintf(w, "%s: the API of %s\n", m.Path, tag)
		case n == 0:
			fmt.Fprintf(w, "%s: compatible with %s\n", m.Path, tag)
		default:
			fmt.Fprintf(w, "%s: %d incompatible change(s) of %s\n", m.Path, n, tag)
		}
		for _, c := range report.Changes {
			kind := "compatible"
			if !c.Compatible {
				kind = "INCOMPATIBLE"
			}
			fmt.Fprintf(w, "  %s: %s\n", kind, c.Message)
		}
	}
	return incompatible, nil
}

// lastRelease returns the highest core tag vX.Y.Z in HEAD's history, or "".
func lastRelease(ctx context.Context, git run.Cmd) (string, error) {
	tags, err := git.Output(ctx, "git", "tag", "--merged", "HEAD", "--list", "v*")
	if err != nil {
		return "", err
	}
	last := ""
	for _, t := range strings.Fields(tags) {
		if semver.IsValid(t) && semver.Canonical(t) == t && semver.Compare(t, last) > 0 {
			last = t
		}
	}
	return last, nil
}

// extract writes the tree of commit into dir, from `git archive`.
func extract(ctx context.Context, repoDir, commit, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, run.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	cmd.Dir = repoDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	terr := untar(out, dir)
	if terr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", commit, err, stderr.String())
	}
	return terr
}

func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(name, dir+string(filepath.Separator)) {
			return fmt.Errorf("git archive: %q is outside the tree", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, name); err != nil {
				return err
			}
		}
	}
}

// load type-checks the packages of module m in the tree at root that have an API:
// neither internal nor commands. It loads in the workspace of the tree's go.work.
func load(ctx context.Context, root string, m *repo.Module) (*apidiff.Module, error) {
	env := run.Environ("GOWORK=" + filepath.Join(root, "go.work"))
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		env = run.Environ("GOWORK=off")
	}
	cfg := &packages.Config{
		Context: ctx,
		Dir:     filepath.Join(root, filepath.FromSlash(m.Dir)),
		Env:     env,
		Mode:    packages.NeedName | packages.NeedModule,
	}
	// First the names only, which compiles nothing: the commands of cmd/cosid are
	// never built for an API they do not have.
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Path == m.Path && p.Name != "main" && !internal(m.Path, p.PkgPath) {
			paths = append(paths, p.PkgPath)
		}
	}
	mod := &apidiff.Module{Path: m.Path}
	if len(paths) == 0 {
		return mod, nil
	}
	// The export data of the packages and their dependencies, built as go vet and
	// go build build them: the build cache has every dependency by the time
	// .ci/run gets here, and the working tree's packages too.
	cfg.Mode = packages.NeedName | packages.NeedModule | packages.NeedTypes
	if pkgs, err = packages.Load(cfg, paths...); err != nil {
		return nil, err
	}
	var errs []error
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
		mod.Packages = append(mod.Packages, p.Types)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(mod.Packages, func(a, b *types.Package) int { return strings.Compare(a.Path(), b.Path()) })
	return mod, nil
}

// internal reports whether pkg is an internal package of the module at mod, as
// apidiff's command decides it.
func internal(mod, pkg string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
	return rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") || strings.HasSuffix(rel, "/internal")
}
