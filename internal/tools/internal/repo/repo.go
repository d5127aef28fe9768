// Package repo reads the modules of the CosId repository from go.work, the one list
// of them: each module's path, whether it is released, and the modules of the
// repository it requires, in the order of those requires; and, beside them, the tool
// modules outside go.work, found by their go.mod. scripts/tidy (through the modules
// command), scripts/release and scripts/apicheck all ask it (docs/modules.md).
package repo

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

const (
	// ModulePath is the path of the core, and the prefix of every module path of the
	// repository: the module in directory D is ModulePath/D.
	ModulePath = "github.com/cosid-go/cosid"

	// Placeholder is the version at which a module of the repository requires another
	// until the first release names its tag.
	Placeholder = "v0.0.0-00010101000000-000000000000"

	// NotReleased starts the comment of a go.work use line whose module is not
	// released: `./bench // not released: …`.
	NotReleased = "not released"
)

// Kind says what a release does with a module.
type Kind int

const (
	// Released modules are tagged at every release.
	Released Kind = iota
	// Unreleased modules are in go.work, marked NotReleased: a release moves their
	// requires, but tags none of them.
	Unreleased
	// Tool modules are outside go.work (internal/tools, deploy/tools, …): they require
	// no module of the repository and a release leaves them alone.
	Tool
)

func (k Kind) String() string {
	switch k {
	case Released:
		return "released"
	case Unreleased:
		return "unreleased"
	case Tool:
		return "tool"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Module is one module of the repository.
type Module struct {
	Dir  string // its directory, slash-separated and relative to the root: "." or "store/redisstore"
	Path string // its module path, ModulePath or ModulePath/Dir
	Kind Kind

	// Requires maps each module of the repository that its go.mod requires, directly
	// or indirectly, to the version it names.
	Requires map[string]string

	// Level is 0 for a module that requires no module of the repository, and one more
	// than the highest level of those it requires otherwise: a release tags the
	// modules of one level at one commit.
	Level int
}

// Tag returns the name of the tag of the module at version: the version for the
// core, "DIR/version" for a nested module.
func (m *Module) Tag(version string) string {
	if m.Dir == "." {
		return version
	}
	return m.Dir + "/" + version
}

// Repo is the repository's modules.
type Repo struct {
	Root string // absolute

	// Modules holds every module in the order of their requires: the modules of
	// go.work by Level, then by directory; then the tools, by directory.
	Modules []*Module
}

// Load reads go.work at root and every go.mod below it.
func Load(root string) (*Repo, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	workPath := filepath.Join(root, "go.work")
	data, err := os.ReadFile(workPath)
	if err != nil {
		return nil, err
	}
	wf, err := modfile.ParseWork(workPath, data, nil)
	if err != nil {
		return nil, err
	}
	r := &Repo{Root: root}
	inWork := map[string]bool{}
	for _, u := range wf.Use {
		dir, err := relDir(root, u.Path)
		if err != nil {
			return nil, fmt.Errorf("go.work: use %s: %w", u.Path, err)
		}
		if inWork[dir] {
			return nil, fmt.Errorf("go.work: %s is used twice", u.Path)
		}
		inWork[dir] = true
		kind := Released
		if notReleased(u.Syntax) {
			kind = Unreleased
		}
		m, err := readModule(root, dir, kind)
		if err != nil {
			return nil, err
		}
		r.Modules = append(r.Modules, m)
	}
	tools, err := goModDirs(root)
	if err != nil {
		return nil, err
	}
	for _, dir := range tools {
		if inWork[dir] {
			continue
		}
		m, err := readModule(root, dir, Tool)
		if err != nil {
			return nil, err
		}
		r.Modules = append(r.Modules, m)
	}
	if err := r.order(); err != nil {
		return nil, err
	}
	return r, nil
}

// notReleased reports whether a use line's comment marks it NotReleased.
func notReleased(line *modfile.Line) bool {
	if line == nil {
		return false
	}
	for _, c := range line.Suffix {
		text := strings.TrimSpace(strings.TrimPrefix(c.Token, "//"))
		if strings.HasPrefix(text, NotReleased) {
			return true
		}
	}
	return false
}

// relDir returns the slash-separated directory of a go.work path relative to root.
func relDir(root, p string) (string, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, filepath.FromSlash(p))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", err
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", errors.New("outside the repository")
	}
	return rel, nil
}

// goModDirs returns the directories below root that hold a go.mod, skipping those
// the go command skips (names that start with "." or "_", testdata) and
// node_modules.
func goModDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" {
			dir, err := relDir(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			dirs = append(dirs, dir)
		}
		return nil
	})
	return dirs, err
}

// PathOf returns the module path of the module in directory dir.
func PathOf(dir string) string {
	if dir == "." {
		return ModulePath
	}
	return ModulePath + "/" + dir
}

// IsRepoPath reports whether p is the path of the core or below it.
func IsRepoPath(p string) bool {
	return p == ModulePath || strings.HasPrefix(p, ModulePath+"/")
}

func readModule(root, dir string, kind Kind) (*Module, error) {
	file := path.Join(dir, "go.mod")
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	mf, err := modfile.Parse(file, data, nil)
	if err != nil {
		return nil, err
	}
	if mf.Module == nil {
		return nil, fmt.Errorf("%s: no module line", file)
	}
	m := &Module{Dir: dir, Path: mf.Module.Mod.Path, Kind: kind, Requires: map[string]string{}}
	if want := PathOf(dir); m.Path != want {
		return nil, fmt.Errorf("%s: module %s, want %s: a module's path is its directory below %s, which its tags name", file, m.Path, want, ModulePath)
	}
	for _, r := range mf.Require {
		if IsRepoPath(r.Mod.Path) {
			m.Requires[r.Mod.Path] = r.Mod.Version
		}
	}
	for _, r := range mf.Replace {
		if IsRepoPath(r.Old.Path) {
			return nil, fmt.Errorf("%s: replace %s: a go.mod of the repository replaces none of its modules (go.work and scripts/tidy tie them)", file, r.Old.Path)
		}
	}
	return m, nil
}

// order sets each module's Level and sorts Modules by the requires.
func (r *Repo) order() error {
	byPath := map[string]*Module{}
	for _, m := range r.Modules {
		byPath[m.Path] = m
	}
	for _, m := range r.Modules {
		for p := range m.Requires {
			dep, ok := byPath[p]
			switch {
			case !ok:
				return fmt.Errorf("%s/go.mod requires %s, which is no module of the repository (go.work, or a go.mod outside it)", m.Dir, p)
			case m.Kind == Released && dep.Kind != Released:
				return fmt.Errorf("%s/go.mod requires %s, which is not released: a released module requires released ones only", m.Dir, p)
			case dep.Kind == Tool:
				return fmt.Errorf("%s/go.mod requires the tool module %s: add it to go.work", m.Dir, p)
			case m.Kind == Tool:
				return fmt.Errorf("the tool module %s requires %s: a module outside go.work requires no module of the repository", m.Dir, p)
			}
		}
	}
	const unset, visiting = -1, -2
	for _, m := range r.Modules {
		m.Level = unset
	}
	var level func(m *Module, stack []string) error
	level = func(m *Module, stack []string) error {
		switch m.Level {
		case visiting:
			return fmt.Errorf("the requires go round: %s", strings.Join(append(stack, m.Path), " → "))
		case unset:
		default:
			return nil
		}
		m.Level = visiting
		l := 0
		for p := range m.Requires {
			dep := byPath[p]
			if err := level(dep, append(stack, m.Path)); err != nil {
				return err
			}
			l = max(l, dep.Level+1)
		}
		m.Level = l
		return nil
	}
	for _, m := range r.Modules {
		if err := level(m, nil); err != nil {
			return err
		}
	}
	slices.SortStableFunc(r.Modules, func(a, b *Module) int {
		return cmp.Or(cmp.Compare(toolRank(a), toolRank(b)), cmp.Compare(a.Level, b.Level), cmp.Compare(a.Dir, b.Dir))
	})
	return nil
}

func toolRank(m *Module) int {
	if m.Kind == Tool {
		return 1
	}
	return 0
}

// Module returns the module of path p, or nil.
func (r *Repo) Module(p string) *Module {
	for _, m := range r.Modules {
		if m.Path == p {
			return m
		}
	}
	return nil
}

// Work returns the modules of go.work, in order.
func (r *Repo) Work() []*Module {
	return r.filter(func(m *Module) bool { return m.Kind != Tool })
}

// Released returns the released modules, in order.
func (r *Repo) Released() []*Module {
	return r.filter(func(m *Module) bool { return m.Kind == Released })
}

func (r *Repo) filter(keep func(*Module) bool) []*Module {
	var ms []*Module
	for _, m := range r.Modules {
		if keep(m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// RequiredVersions returns the versions at which the modules of go.work require
// modules of the repository, sorted.
func (r *Repo) RequiredVersions() []string {
	var vs []string
	for _, m := range r.Work() {
		for _, v := range m.Requires {
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
	}
	slices.Sort(vs)
	return vs
}
