package cosid_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"

	_ "modernc.org/sqlite" // the driver of the SQLite stores below, which the root does not link
)

// yamlBlock is a YAML example of the docs. "```yaml" is a configuration that works
// here: it opens and each generator gives an id. "```yaml check" is a configuration
// for servers this machine does not have: it must pass Load's checks, which do no
// I/O. Any other word after yaml (the 4.x application.yaml of a Java service) is
// not a CosId configuration and is left alone.
// secretFile is a setting that names a file of a secret, such as token-file; the
// examples name them relative to the working directory, where the test writes them.
// A state-file is the generator's own, which it writes.
var secretFile = regexp.MustCompile(`([a-z]+)-file: ([\w.-]+)`)

var yamlBlock = regexp.MustCompile("(?s)```yaml( check)?\n(.*?)```")

// TestDocs_ExamplesOpen opens every YAML example of the docs and the example
// cosid.yaml (of the repository's root, two directories up), and takes an id of each
// generator, so the docs cannot drift from the code.
func TestDocs_ExamplesOpen(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	type example struct {
		text      string
		checkOnly bool
	}
	examples := map[string]example{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range yamlBlock.FindAllSubmatch(data, -1) {
			examples[filepath.Base(f)+"#"+string(rune('1'+i))] = example{text: string(m[2]), checkOnly: len(m[1]) > 0}
		}
	}
	data, err := os.ReadFile("../../cosid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	examples["cosid.yaml"] = example{text: string(data)}
	if len(examples) < 6 {
		t.Fatalf("found %d examples; the docs lost theirs?", len(examples))
	}
	for name, ex := range examples {
		text := ex.text
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // a sqlite store's cosid.db goes here
			for _, m := range secretFile.FindAllStringSubmatch(text, -1) {
				if m[1] == "state" {
					continue
				}
				if err := os.WriteFile(m[2], []byte("secret\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := cosid.ParseConfig([]byte(text))
			if err != nil {
				t.Fatalf("ParseConfig: %v\n%s", err, text)
			}
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
			if err != nil {
				t.Fatalf("Open: %v\n%s", err, text)
			}
			defer rt.Close()
			if ex.checkOnly {
				return
			}
			for _, g := range rt.Generators() {
				key := ""
				if g.Keyed {
					key = "docs-key"
				}
				src, err := rt.Source(g.Name, key)
				if err != nil {
					t.Fatalf("Source(%q, %q): %v", g.Name, key, err)
				}
				if _, err := src.Next(t.Context()); err != nil {
					t.Errorf("Next of %q: %v", g.Name, err)
				}
			}
		})
	}
}

// TestDocs_ErrorTextIsPrinted makes the configurations behind the example errors of
// docs/configuration.md and checks that the runtime prints those words; "…" in the
// docs stands for any text.
func TestDocs_ErrorTextIsPrinted(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "## Errors")
	var lines []string
	for _, m := range regexp.MustCompile("(?s)```text\n(.*?)```").FindAllStringSubmatch(section, 2) {
		lines = append(lines, strings.Split(strings.TrimSpace(m[1]), "\n")...)
	}
	gen := func(g string) string {
		return "cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: ids.db, timeout: 2s}\n  generators:\n" + g
	}
	load := func(text string) error { // as a user meets it: a file, cosid.yaml
		if err := os.WriteFile("cosid.yaml", []byte(text), 0o600); err != nil {
			return err
		}
		rt, err := cosid.Load(t.Context(), "cosid.yaml", cosid.WithLogger(nil))
		if err == nil {
			rt.Close()
		}
		return err
	}
	errs := []func() error{
		func() error {
			return load(gen("    bill: {strategy: periodic-segment, store: db, period: YEAR_MONTH_DY, zone: UTC}\n"))
		},
		func() error { return load(gen("    order: {strategy: segment, store: db, stpe: 10}\n")) },
		func() error { return load(gen("    order: {strategy: segment, store: db, reserve-timeout: 1s}\n")) },
		func() error {
			rt, err := openYAML(t, "cosid:\n  stores:\n    db: {type: sql, driver: pgx, dsn: 'postgres://u@127.0.0.1:1/x', timeout: 1s}\n"+
				"  generators:\n    order: {strategy: segment, store: db}\n")
			if err != nil {
				return err
			}
			_, err = rt.Next(t.Context(), "order")
			return err
		},
	}
	if len(lines) != len(errs) {
		t.Fatalf("the docs show %d errors, the test makes %d:\n%s", len(lines), len(errs), strings.Join(lines, "\n"))
	}
	t.Chdir(t.TempDir())
	for i, line := range lines {
		parts := strings.Split(line, "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		want := regexp.MustCompile("(?s)^" + strings.Join(parts, ".*") + "$")
		if err := errs[i](); err == nil || !want.MatchString(err.Error()) {
			t.Errorf("the docs say\n  %s\nthe runtime says\n  %v", line, err)
		}
	}
}
