package redisstore_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// TestReindex_FindsKeysWrittenWithoutIndex drops the index, as keys written by a
// version of the store without it have none, and rebuilds it with Reindex: Keys
// lists every range key again, escaped names decoded, and no other key of the prefix.
func TestReindex_FindsKeysWrittenWithoutIndex(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr) + "[x]"
	st := openStore(t, addr, redisstore.WithPrefix(prefix))
	c := newClient(t, addr)
	ctx := t.Context()
	want := []string{"100%", "a", "a}:range", "{b}", "雪花"}
	for _, k := range want {
		if _, err := st.Reserve(ctx, k, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Seal(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	lease := store.LeaseRequest{Namespace: "ns", OwnerKey: "o", Limit: 2, TTL: 1e9, Preferred: -1}
	if _, err := st.Acquire(ctx, lease); err != nil {
		t.Fatal(err)
	}
	foreign := []string{prefix + "{50%zz}:range", prefix + "{}:range", prefix + "x{a}:range"}
	for _, name := range foreign {
		if err := c.HSet(ctx, name, "next", 1).Err(); err != nil {
			t.Fatal(err)
		}
	}
	other := openStore(t, addr, redisstore.WithPrefix(strings.TrimSuffix(prefix, "[x]")+"x"))
	if _, err := other.Reserve(ctx, "z", 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Del(ctx, redisstore.IndexName(prefix)).Err(); err != nil {
		t.Fatal(err)
	}
	n, err := st.Reindex(ctx)
	if err != nil || n != len(want) {
		t.Fatalf("Reindex = %d, %v; want %d", n, err, len(want))
	}
	if got := keyNames(t, st, "", 2); !slices.Equal(got, want) {
		t.Errorf("keys after Reindex = %q, want %q", got, want)
	}
}

// FuzzKeyOfRangeName decodes names of range hashes: every key comes back from its
// name, and any name decoded names that key again.
func FuzzKeyOfRangeName(f *testing.F) {
	for _, s := range []string{"a", "a}:range", "100%", "%7D", "{x}", "雪花", "cosid:{a}:range", "cosid:{%25}:range", "cosid:{%zz}:range"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const prefix = "cosid:"
		if key, ok := redisstore.KeyOfRangeName(prefix, s); ok && redisstore.RangeKey(prefix, key) != s {
			t.Errorf("KeyOfRangeName(%q) = %q, whose name is %q", s, key, redisstore.RangeKey(prefix, key))
		}
		if store.CheckKey(s) != nil {
			return
		}
		if key, ok := redisstore.KeyOfRangeName(prefix, redisstore.RangeKey(prefix, s)); !ok || key != s {
			t.Errorf("KeyOfRangeName(RangeKey(%q)) = %q, %v", s, key, ok)
		}
	})
}
