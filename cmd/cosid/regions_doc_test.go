package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegionsDoc writes the YAML examples of docs/regions.md as the files their
// first lines name, runs each cosid config check --fleet of the page on them, and
// checks that it exits as the page implies (1 with a refusal, else 0) and prints
// what the page shows, stdout then stderr: the regions' examples and the check's
// outputs cannot drift apart. (integration/cosid's TestDocs_ExamplesOpen loads each
// file on its own.)
func TestRegionsDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "regions.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	dir := t.TempDir()
	yamls := fenced(text, "yaml check")
	if n := strings.Count(text, "```yaml"); n != len(yamls) || n < 7 {
		t.Fatalf("the page has %d yaml blocks, %d of them yaml check; want every one a region's file, and the 7 of two and three regions and the mistakes", n, len(yamls))
	}
	used := map[string]bool{}
	for _, y := range yamls {
		first, _, _ := strings.Cut(y, "\n")
		name, ok := strings.CutPrefix(first, "# ")
		name, _, _ = strings.Cut(name, ":")
		if !ok || !strings.HasSuffix(name, ".yaml") || used[name] {
			t.Fatalf("a yaml block's first line is %q; want # DIR/FILE.yaml, a file no other block names", first)
		}
		used[name] = false
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	passed, refused := 0, 0
	for _, block := range fenced(text, "console") {
		for _, ex := range examples(block) {
			args := strings.Fields(ex.command)
			if len(args) < 5 || strings.Join(args[:4], " ") != "cosid config check --fleet" {
				t.Errorf("$ %s: want a cosid config check --fleet", ex.command)
				continue
			}
			for _, f := range args[4:] {
				if _, ok := used[f]; !ok {
					t.Errorf("$ %s: %s is none of the page's files", ex.command, f)
				}
				used[f] = true
			}
			want := 0
			if strings.Contains(ex.output, "refused: ") {
				want, refused = 1, refused+1
			} else {
				passed++
			}
			out, errOut, code := runCLI(t, dir, args[1:]...)
			if code != want || out+errOut != ex.output {
				t.Errorf("$ %s: exit %d, want %d; it prints\n%s%s\nthe page shows\n%s", ex.command, code, want, out, errOut, ex.output)
			}
		}
	}
	for name, ok := range used {
		if !ok {
			t.Errorf("%s is in no --fleet of the page", name)
		}
	}
	if passed < 2 || refused < 2 {
		t.Errorf("the page runs %d fleets that pass and %d refused; want the two and three regions, and the mistakes", passed, refused)
	}
}
