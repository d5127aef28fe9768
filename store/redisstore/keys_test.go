package redisstore_test

import (
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store/redisstore"
)

// hashTag returns the part of key that Redis Cluster hashes: the text between the
// first "{" and the first "}" after it when that is not empty, else the whole key.
func hashTag(key string) string {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	end := strings.IndexByte(key[open+1:], '}')
	if end <= 0 {
		return key
	}
	return key[open+1 : open+1+end]
}

// checkTags checks the key names of name: every key of a namespace has the same
// non-empty hash tag, so a script's keys lie in one Cluster slot, and the tag is
// name's own (names with different tags never share keys).
func checkTags(t *testing.T, prefix, name string) {
	t.Helper()
	keys := append(redisstore.NamespaceKeys(prefix, name), redisstore.RangeKey(prefix, name))
	want := hashTag(keys[0])
	if want == keys[0] {
		t.Fatalf("key %q has no hash tag", keys[0])
	}
	for _, k := range keys {
		if got := hashTag(k); got != want {
			t.Errorf("key %q hashes %q, key %q hashes %q: not one Cluster slot", keys[0], want, k, got)
		}
		if !strings.HasPrefix(k, prefix) {
			t.Errorf("key %q does not start with the prefix %q", k, prefix)
		}
	}
	if redisstore.Tag(name) != "{"+want+"}" {
		t.Errorf("the tag of %q is %q, but its keys hash %q", name, redisstore.Tag(name), want)
	}
}

func TestKeys_OneHashTagPerName(t *testing.T) {
	tests := []struct{ name, wantRange string }{
		{"order", "cosid:{order}:range"},
		{"a}b", "cosid:{a%7Db}:range"},
		{"}", "cosid:{%7D}:range"},
		{"{x}", "cosid:{{x%7D}:range"},
		{"100%", "cosid:{100%25}:range"},
		{"%7D", "cosid:{%257D}:range"},
		{"雪花/2026", "cosid:{雪花/2026}:range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := redisstore.RangeKey("cosid:", tc.name); got != tc.wantRange {
				t.Errorf("range key of %q = %q, want %q", tc.name, got, tc.wantRange)
			}
			checkTags(t, "cosid:", tc.name)
		})
	}
}

// FuzzTag checks that every name, whatever its braces and percent signs, gets keys
// in one Cluster slot, and that two names never share a key.
func FuzzTag(f *testing.F) {
	for _, s := range []string{"order", "}", "{}", "%", "%7D", "a{b}c", "}{"} {
		f.Add(s, s+"}")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" {
			return
		}
		checkTags(t, "p:", a)
		if a != b && redisstore.Tag(a) == redisstore.Tag(b) {
			t.Errorf("names %q and %q share the tag %q", a, b, redisstore.Tag(a))
		}
	})
}
