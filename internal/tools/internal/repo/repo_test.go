package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path → content) below a new directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func gomod(path string, requires ...string) string {
	var b strings.Builder
	b.WriteString("module " + path + "\n\ngo 1.26.0\n")
	for _, r := range requires {
		b.WriteString("\nrequire " + r + "\n")
	}
	return b.String()
}

const ph = Placeholder

// sample is a repository like this one: a core, a store, a server above both, a
// command above it, a test module not released, and a tool module outside go.work.
func sample() map[string]string {
	return map[string]string{
		"go.work": `go 1.26.0

use (
	.
	./cmd/x
	./integration // not released: tests
	./server
	./store/a
)

// A comment that stays.
replace (
	example.com/other v1.0.0 => ../other
	github.com/cosid-go/cosid ` + ph + ` => ./
	github.com/cosid-go/cosid/gone ` + ph + ` => ./gone
)
`,
		"go.mod":                     gomod(ModulePath),
		"store/a/go.mod":             gomod(ModulePath+"/store/a", ModulePath+" "+ph),
		"server/go.mod":              gomod(ModulePath+"/server", ModulePath+" "+ph, ModulePath+"/store/a "+ph+" // indirect"),
		"cmd/x/go.mod":               gomod(ModulePath+"/cmd/x", ModulePath+"/server "+ph),
		"integration/go.mod":         gomod(ModulePath+"/integration", ModulePath+" "+ph),
		"internal/tools/go.mod":      gomod(ModulePath + "/internal/tools"),
		"internal/testdata/x/go.mod": gomod("example.com/ignored"),
		".hidden/go.mod":             gomod("example.com/ignored"),
	}
}

func TestLoad_OrderKindsLevels(t *testing.T) {
	r, err := Load(tree(t, sample()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.Modules {
		got = append(got, m.Dir+":"+m.Kind.String()+":"+string(rune('0'+m.Level)))
	}
	want := []string{".:released:0", "integration:unreleased:1", "store/a:released:1", "server:released:2", "cmd/x:released:3", "internal/tools:tool:0"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("modules:\n got %v\nwant %v", got, want)
	}
	if m := r.Module(ModulePath + "/server"); m == nil || m.Requires[ModulePath+"/store/a"] != ph {
		t.Errorf("server's requires: %+v", m)
	}
	if got := len(r.Released()); got != 4 {
		t.Errorf("%d released modules, want 4", got)
	}
	if got := len(r.Work()); got != 5 {
		t.Errorf("%d modules of go.work, want 5", got)
	}
	if got := r.RequiredVersions(); len(got) != 1 || got[0] != ph {
		t.Errorf("required versions %v, want the placeholder", got)
	}
}

func TestLoad_Refuses(t *testing.T) {
	for name, change := range map[string]struct {
		file, content, want string
	}{
		"a cycle":                   {"go.mod", gomod(ModulePath, ModulePath+"/cmd/x "+ph), "go round"},
		"an unknown module":         {"store/a/go.mod", gomod(ModulePath+"/store/a", ModulePath+"/store/b "+ph), "no module of the repository"},
		"a released on unreleased":  {"store/a/go.mod", gomod(ModulePath+"/store/a", ModulePath+"/integration "+ph), "not released"},
		"a path not its directory":  {"store/a/go.mod", gomod(ModulePath + "/store/b"), "want " + ModulePath + "/store/a"},
		"a tool that requires core": {"internal/tools/go.mod", gomod(ModulePath+"/internal/tools", ModulePath+" "+ph), "tool module"},
		"a replace in a go.mod":     {"store/a/go.mod", gomod(ModulePath+"/store/a") + "\nreplace " + ModulePath + " => ../..\n", "replaces none"},
	} {
		t.Run(name, func(t *testing.T) {
			files := sample()
			files[change.file] = change.content
			_, err := Load(tree(t, files))
			if err == nil || !strings.Contains(err.Error(), change.want) {
				t.Errorf("Load: %v, want an error with %q", err, change.want)
			}
		})
	}
}

func TestSyncWork(t *testing.T) {
	root := tree(t, sample())
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := r.SyncWork()
	if err != nil || !changed {
		t.Fatalf("SyncWork: %v, %v; want a change", changed, err)
	}
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	work := string(data)
	for _, want := range []string{
		"example.com/other v1.0.0 => ../other", // not the repository's: kept
		"// A comment that stays.",
		"./integration // not released: tests",
		ModulePath + " " + ph + " => ./\n",
		ModulePath + "/server " + ph + " => ./server\n",
		ModulePath + "/store/a " + ph + " => ./store/a\n",
	} {
		if !strings.Contains(work, want) {
			t.Errorf("go.work lacks %q:\n%s", want, work)
		}
	}
	if strings.Contains(work, "/gone") {
		t.Errorf("go.work keeps the replace of a module no one requires:\n%s", work)
	}
	if changed, err := r.SyncWork(); err != nil || changed {
		t.Errorf("SyncWork again: %v, %v; want no change", changed, err)
	}

	// After a release the requires name v0.1.0, and so do the replaces.
	for _, f := range []string{"store/a/go.mod", "server/go.mod", "cmd/x/go.mod", "integration/go.mod"} {
		p := filepath.Join(root, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), ph, "v0.1.0")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r, err = Load(root); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SyncWork(); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(filepath.Join(root, "go.work"))
	if work := string(data); strings.Contains(work, ph) || !strings.Contains(work, ModulePath+"/store/a v0.1.0 => ./store/a") {
		t.Errorf("go.work after a release:\n%s", work)
	}
}

func TestTag(t *testing.T) {
	for dir, want := range map[string]string{".": "v1.2.3", "store/a": "store/a/v1.2.3"} {
		if got := (&Module{Dir: dir}).Tag("v1.2.3"); got != want {
			t.Errorf("Tag of %s: %s, want %s", dir, got, want)
		}
	}
}
