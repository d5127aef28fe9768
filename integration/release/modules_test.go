package release_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestModules_Listed checks the lists that go.work does not derive (docs/modules.md,
// "Adding a module"): every store module of go.work is linked by the CLI
// (cmd/cosid/drivers.go) and by the docs' configuration tests
// (integration/cosid/docs_stores_test.go), and every module, of go.work or a tool
// module outside it, has its row in docs/modules.md's table, which has no other.
func TestModules_Listed(t *testing.T) {
	root := repoRoot(t)
	modules := workModules(t, root)

	for _, file := range []string{"cmd/cosid/drivers.go", "integration/cosid/docs_stores_test.go"} {
		imports := importsOf(t, filepath.Join(root, file))
		for _, m := range modules {
			if strings.HasPrefix(m.path, modulePath+"/store/") && !slices.Contains(imports, m.path) {
				t.Errorf("%s does not import the store module %s: _ %q", file, m.path, m.path)
			}
		}
	}

	rows := tableModules(t, filepath.Join(root, "docs", "modules.md"))
	want := map[string]bool{}
	for _, m := range modules {
		want[m.path] = true
	}
	for _, dir := range toolModuleDirs(t, root, modules) {
		want[modPath(t, filepath.Join(root, dir))] = true
	}
	for p := range want {
		if !slices.Contains(rows, p) {
			t.Errorf("docs/modules.md's table has no row for the module %s", p)
		}
	}
	for _, p := range rows {
		if !want[p] {
			t.Errorf("docs/modules.md's table has a row for %s, which is no module of the repository", p)
		}
	}
}

// importsOf returns the import paths of a Go file.
func importsOf(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// tableModules returns the module paths that start the rows of the table of a
// markdown file: | `github.com/cosid-go/cosid/…` … |.
func tableModules(t *testing.T, file string) []string {
	t.Helper()
	row := regexp.MustCompile("^\\| `(" + regexp.QuoteMeta(modulePath) + "[^`]*)`")
	var paths []string
	for _, line := range strings.Split(readFile(t, file), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			paths = append(paths, m[1])
		}
	}
	if len(paths) == 0 {
		t.Fatalf("%s has no table of modules", file)
	}
	return paths
}

// toolModuleDirs returns the directories below root with a go.mod that go.work
// does not use, skipping what the go command skips.
func toolModuleDirs(t *testing.T, root string, work []workModule) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if name != "go.mod" {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !slices.ContainsFunc(work, func(m workModule) bool { return m.dir == rel }) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
