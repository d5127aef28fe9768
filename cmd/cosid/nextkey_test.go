package main

import (
	"regexp"
	"strings"
	"testing"
)

const keyedCLIConfig = `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    invoice: { strategy: segment, store: db, keyed: true, codec: [ { prefix: { value: "INV-" } }, { to-string: {} } ] }
    order: { strategy: segment, store: db }
`

// TestNext_KeyNamesTheSequenceOfAKeyedGenerator runs cosid next --key on a keyed
// generator: each key is its own sequence, at NS/NAME/KEY, and goes on across runs.
func TestNext_KeyNamesTheSequenceOfAKeyedGenerator(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, keyedCLIConfig)
	for _, step := range []struct{ key, want string }{
		{"acme", "INV-1\nINV-2\n"}, {"globex", "INV-1\nINV-2\n"}, {"acme", "INV-3\nINV-4\n"},
	} {
		if out, errOut, code := runCLI(t, dir, "next", "invoice", "--key", step.key, "-n", "2"); code != 0 || out != step.want {
			t.Errorf("next invoice --key %s = %q (exit %d, stderr %q), want %q", step.key, out, code, errOut, step.want)
		}
	}
	if out, errOut, code := runCLI(t, dir, "keys", "--store", "db", "--prefix", "app/invoice/"); code != 0 ||
		!regexp.MustCompile(`app/invoice/acme +5 `).MatchString(out) || !regexp.MustCompile(`app/invoice/globex +3 `).MatchString(out) {
		t.Errorf("keys --prefix app/invoice/ = %q (exit %d, stderr %q), want acme at 5 and globex at 3", out, code, errOut)
	}
	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"next", "invoice"}, `generator "invoice" is keyed, a sequence per key: name the key with --key K`},
		{[]string{"next", "order", "--key", "acme"}, `--key "acme": generator "order" is not keyed; leave out --key`},
		{[]string{"next", "invoice", "--key", "a/b"}, "--key: invalid key: the key \"a/b\" has '/' at byte 1; want 1–128 bytes of A-Z"},
	} {
		out, errOut, code := runCLI(t, dir, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
			t.Errorf("cosid %s: exit %d, stdout %q, stderr %q; want exit 1 saying %q", strings.Join(tc.args, " "), code, out, errOut, tc.mention)
		}
	}
}
