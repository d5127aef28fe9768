package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOperatingDoc runs the examples of docs/operating.md in their order, in a
// directory with the page's cosid.yaml and its 4.x table, and checks that each
// command prints the output the page shows; times and epoch numbers, which differ
// from run to run, are compared as placeholders.
func TestOperatingDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operating.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	dir := t.TempDir()
	yaml := fenced(text, "yaml")
	if len(yaml) != 1 {
		t.Fatalf("the page has %d yaml blocks, want the one cosid.yaml", len(yaml))
	}
	if err := os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(yaml[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	legacy4x(t, filepath.Join(dir, "legacy.db"), text)
	blocks := fenced(text, "console")
	if len(blocks) < 10 {
		t.Fatalf("the page has %d console blocks", len(blocks))
	}
	for _, block := range blocks {
		for _, ex := range examples(block) {
			out, errOut, code := runCLI(t, dir, strings.Fields(ex.command)[1:]...)
			if code != 0 || normalize(out) != normalize(ex.output) {
				t.Errorf("$ %s: exit %d, stderr %q, stdout\n%s\nthe page shows\n%s", ex.command, code, errOut, out, ex.output)
			}
		}
	}
}

// fenced returns the text of the page's code blocks of lang.
func fenced(text, lang string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

type example struct{ command, output string }

// examples splits a console block into its commands ($ cosid …) and their outputs.
func examples(block string) []example {
	var exs []example
	for line := range strings.Lines(block) {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			exs = append(exs, example{command: strings.TrimSpace(cmd)})
		} else if len(exs) > 0 {
			exs[len(exs)-1].output += line
		}
	}
	return exs
}

var (
	timestamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT[\d:.]+Z`)
	epochs     = regexp.MustCompile(`\b\d{13,}\b`)
	spaces     = regexp.MustCompile(` +`)
)

// normalize replaces what differs from run to run and the alignment it moves.
func normalize(s string) string {
	s = timestamps.ReplaceAllString(s, "TIME")
	s = epochs.ReplaceAllString(s, "EPOCH")
	return spaces.ReplaceAllString(s, " ")
}

// legacy4x creates the 4.x tables cosid and cosid_machine in the SQLite file path,
// with the rows of the page's tables | name | last_max_id | and | namespace |
// machine_id | last_timestamp |.
func legacy4x(t *testing.T, path, text string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table cosid (name varchar(100) not null primary key,
		last_max_id bigint not null default 0, last_fetch_time bigint not null default 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`create table cosid_machine (name varchar(100) not null primary key,
		namespace varchar(100) not null, machine_id integer not null default 0,
		last_timestamp bigint not null default 0, instance_id varchar(100) not null default '',
		distribute_time bigint not null default 0, revert_time bigint not null default 0)`); err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?m)^\| (\S+) \| (\d+) \|$`).FindAllStringSubmatch(text, -1)
	machines := regexp.MustCompile(`(?m)^\| (\S+) \| (\d+) \| (\d+) \|$`).FindAllStringSubmatch(text, -1)
	if len(rows) == 0 || len(machines) == 0 {
		t.Fatal("the page shows no rows of the 4.x tables")
	}
	for _, r := range rows {
		if _, err := db.Exec("insert into cosid (name, last_max_id) values (?, ?)", r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range machines {
		if _, err := db.Exec("insert into cosid_machine (name, namespace, machine_id, last_timestamp) values (?, ?, ?, ?)",
			r[1]+"."+r[2], r[1], r[2], r[3]); err != nil {
			t.Fatal(err)
		}
	}
}
