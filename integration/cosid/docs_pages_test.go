package cosid_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pages are the user's pages: the README and every page of docs/.
func pages(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range append(files, "../../README.md", "../../examples/clients/README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(f, "../../")] = string(data)
	}
	return out
}

var issueNumber = regexp.MustCompile(`(?i)\bissues? #?\d+`)

// TestDocs_NoIssueNumbers: the pages are for users, who do not see the tracker;
// "before issue 19" told them nothing.
func TestDocs_NoIssueNumbers(t *testing.T) {
	for name, text := range pages(t) {
		for _, m := range issueNumber.FindAllString(text, -1) {
			t.Errorf("%s mentions %q: say what changed instead", name, m)
		}
	}
}

var (
	backticked  = regexp.MustCompile("`([^`]+)`")
	yamlSetting = regexp.MustCompile(`(?:^|[\s{,#])([a-z][a-zA-Z-]*):\s`)
)

// settingsOf returns the settings that text names, those inside an
// "options: { … }" as options.NAME, sorted and once each.
func settingsOf(texts []string, pattern *regexp.Regexp) []string {
	var out []string
	for _, text := range texts {
		before, after, hasOptions := strings.Cut(text, "options: {")
		for _, m := range pattern.FindAllStringSubmatch(before+" ", -1) {
			out = append(out, m[1])
		}
		if hasOptions {
			inner, _, _ := strings.Cut(after, "}")
			for _, f := range strings.Split(inner, ",") {
				name, _, _ := strings.Cut(strings.TrimSpace(f), ":")
				out = append(out, "options."+name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestDocs_RedisSettingsAgree: configuration.md's table of store types and
// stores.md's Redis example name the same settings; the table lacked
// sentinels, master-name and three options.
func TestDocs_RedisSettingsAgree(t *testing.T) {
	docs := pages(t)
	var row string
	for line := range strings.SplitSeq(docs["docs/configuration.md"], "\n") {
		if strings.HasPrefix(line, "| `redis` |") {
			row = line
		}
	}
	cells := strings.Split(row, "|")
	if len(cells) < 4 {
		t.Fatalf("configuration.md has no row of the redis store type: %q", row)
	}
	var inTable []string
	for _, m := range backticked.FindAllStringSubmatch(cells[3], -1) {
		inTable = append(inTable, m[1])
	}
	table := settingsOf(inTable, regexp.MustCompile(`^([a-z][a-zA-Z-]*)\s$`))

	block := regexp.MustCompile("(?s)```yaml check\n([^`]*?type: redis\n.*?)```").FindStringSubmatch(docs["docs/stores.md"])
	if block == nil {
		t.Fatal("stores.md has no yaml example of a redis store")
	}
	_, body, _ := strings.Cut(block[1], "type: redis\n")
	example := settingsOf(strings.Split(body, "\n"), yamlSetting)

	if !slices.Equal(table, example) {
		t.Errorf("the redis settings differ:\nconfiguration.md: %q\nstores.md:        %q", table, example)
	}
	if !slices.Contains(table, "options.replicaTimeout") || !slices.Contains(table, "master-name") {
		t.Errorf("configuration.md's redis settings %q lack options.replicaTimeout or master-name", table)
	}
}

// TestDocs_ReadmeSaysWhereTheServerTestsAre: the README's COSID_TEST_…
// variables do nothing for `go test ./...` at the root, whose packages test no
// real server; a newcomer got a green run that tested no database. The README
// says so beside the variables.
func TestDocs_ReadmeSaysWhereTheServerTestsAre(t *testing.T) {
	readme := pages(t)["README.md"]
	i := strings.Index(readme, "| `COSID_TEST_REQUIRE` |")
	if i < 0 {
		t.Fatal("README.md has no table of the COSID_TEST_… variables")
	}
	after := readme[i:]
	if end := strings.Index(after, "\n## "); end >= 0 {
		after = after[:end]
	}
	for _, want := range []string{"`COSID_TEST_…` variables", "`integration` module", "store modules", "`go test ./...` at the root"} {
		if !strings.Contains(after, want) {
			t.Errorf("README.md's text after the COSID_TEST_… table does not say %q", want)
		}
	}
}

var (
	keyedHeapRow = regexp.MustCompile(`\| heap of an idle live key[^|]*\| ([0-9,]+) bytes \|`)
	keyedHeapSay = regexp.MustCompile(`An idle key holds ([0-9,]+) bytes \(([0-9,]+) of a periodic template\),\s+(under|over) the goal of 1 KiB`)
)

// TestDocs_KeyedMemoryFigureIsTheTables: keyed.md's text gives the figures of
// its table, measured by BenchmarkKeyed_MemoryPerKey, and says rightly whether
// they are under the goal of 1 KiB; the text said "about 1.1 KiB, over the goal"
// beside a table of 1,181 bytes after the figure fell to 653.
func TestDocs_KeyedMemoryFigureIsTheTables(t *testing.T) {
	keyed := pages(t)["docs/keyed.md"]
	var table []int
	for _, m := range keyedHeapRow.FindAllStringSubmatch(keyed, -1) {
		n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		table = append(table, n)
	}
	say := keyedHeapSay.FindStringSubmatch(strings.Join(strings.Fields(keyed), " "))
	if len(table) != 2 || say == nil {
		t.Fatalf("keyed.md: heap rows %v and a sentence %q; want the two rows (segment, periodic) and the sentence that gives them", table, say)
	}
	seg, _ := strconv.Atoi(strings.ReplaceAll(say[1], ",", ""))
	per, _ := strconv.Atoi(strings.ReplaceAll(say[2], ",", ""))
	if seg != table[0] || per != table[1] {
		t.Errorf("keyed.md's text says %d and %d bytes a key, its table %v", seg, per, table)
	}
	if under := max(seg, per) <= 1024; under != (say[3] == "under") {
		t.Errorf("keyed.md says %d and %d bytes are %s the goal of 1 KiB", seg, per, say[3])
	}
}
