package cosid_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/cosid-go/cosid"
)

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestDocs_ExamplesOpen opens every YAML example of the docs and the example
// cosid.yaml, and takes an id of each generator, so the docs cannot drift from the code.
func TestDocs_ExamplesOpen(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range yamlBlock.FindAllSubmatch(data, -1) {
			examples[filepath.Base(f)+"#"+string(rune('1'+i))] = string(m[1])
		}
	}
	data, err := os.ReadFile("cosid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	examples["cosid.yaml"] = string(data)
	if len(examples) < 6 {
		t.Fatalf("found %d examples; the docs lost theirs?", len(examples))
	}
	for name, text := range examples {
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // a sqlite store's cosid.db goes here
			cfg, err := cosid.ParseConfig([]byte(text))
			if err != nil {
				t.Fatalf("ParseConfig: %v\n%s", err, text)
			}
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
			if err != nil {
				t.Fatalf("Open: %v\n%s", err, text)
			}
			defer rt.Close()
			for _, g := range rt.Generators() {
				if _, err := rt.Next(g.Name); err != nil {
					t.Errorf("Next(%q): %v", g.Name, err)
				}
			}
		})
	}
}
