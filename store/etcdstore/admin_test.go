package etcdstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/etcdstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestAdminKit runs the admin test kit; two Stores, each with a client of its own,
// stand in for two processes.
func TestAdminKit(t *testing.T) {
	t.Parallel()
	ep, prefix := endpoint(t), newPrefix()
	storetest.RunAdmin(t, func(t *testing.T) store.Admin { return openStore(t, ep, prefix) })
}

// listKeys lists every key under prefix after after in pages of page.
func listKeys(t *testing.T, st store.Admin, prefix string, page int) []string {
	t.Helper()
	var got []string
	for ki, err := range store.AllKeys(t.Context(), st, prefix, page) {
		if err != nil {
			t.Fatalf("AllKeys(%q, %d): %v", prefix, page, err)
		}
		got = append(got, ki.Key)
	}
	return got
}

// TestKeys_ByteOrderWhereEtcdDiffers lists keys that extend others with bytes below
// '/', with '/' and with the letters of "next", whose etcd keys ({key}/next) sort in
// another order than the keys: chains where etcd puts the deepest first, and a key
// behind many of its extensions. Every page size gives the keys in byte order.
func TestKeys_ByteOrderWhereEtcdDiffers(t *testing.T) {
	t.Parallel()
	st := openStore(t, endpoint(t), newPrefix())
	keys := []string{"a", "a!", "a!!", "a!!!", "a!!!!", "a.", "a.-", "a/", "a/!", "a/n", "a/ne", "a/nex", "a/next", "a/nexu", "a/o", "a/b/c", "a/b", "a0", "b"}
	for i := range 12 {
		keys = append(keys, fmt.Sprintf("a %02d", i)) // extensions that etcd puts before "a"
	}
	for _, k := range keys {
		if _, err := st.Reserve(t.Context(), k, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	want := slices.Sorted(slices.Values(keys))
	for page := 1; page <= len(keys)+1; page++ {
		if got := listKeys(t, st, "", page); !slices.Equal(got, want) {
			t.Fatalf("pages of %d:\n got %q\nwant %q", page, got, want)
		}
	}
	wantA := slices.DeleteFunc(slices.Clone(want), func(k string) bool { return !strings.HasPrefix(k, "a/") })
	if got := listKeys(t, st, "a/", 2); !slices.Equal(got, wantA) {
		t.Errorf("under \"a/\":\n got %q\nwant %q", got, wantA)
	}
}

// TestKeys_ByteOrderRandom lists random keys of an alphabet around '/' and the
// letters of "next", in pages of random sizes from random points, against the
// sorted keys.
func TestKeys_ByteOrderRandom(t *testing.T) {
	t.Parallel()
	st := openStore(t, endpoint(t), newPrefix())
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = " !-./0anetxé"
	runes := []rune(alphabet)
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		return b.String()
	}
	set := map[string]bool{}
	for len(set) < 150 {
		k := word(1 + rng.IntN(5))
		set[k] = true
		if _, err := st.Reserve(t.Context(), k, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	all := slices.Sorted(func(yield func(string) bool) {
		for k := range set {
			if !yield(k) {
				return
			}
		}
	})
	for range 60 {
		prefix, after, limit := word(rng.IntN(2)), word(rng.IntN(4)), 1+rng.IntN(12)
		var want []string
		for _, k := range all {
			if strings.HasPrefix(k, prefix) && k > after && len(want) < limit {
				want = append(want, k)
			}
		}
		page, err := st.Keys(t.Context(), prefix, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ki := range page {
			got = append(got, ki.Key)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Keys(%q, %q, %d):\n got %q\nwant %q", prefix, after, limit, got, want)
		}
	}
}

// TestKeys_CorruptValue checks that a range key holding a value the store never
// writes fails the listing with ErrCorrupt instead of a guess.
func TestKeys_CorruptValue(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	st := openStore(t, ep, prefix)
	if _, err := newClient(t, ep).Put(t.Context(), prefix+"k/next", "-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Keys(t.Context(), "", "", 10); !errors.Is(err, etcdstore.ErrCorrupt) {
		t.Errorf("Keys over a corrupt value = %v, want ErrCorrupt", err)
	}
}

// TestDelete_SealedKeyServesAgain checks that a store that saw a key sealed reserves
// it again once another store deleted it, instead of trusting what it saw.
func TestDelete_SealedKeyServesAgain(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	a, b := openStore(t, ep, prefix), openStore(t, ep, prefix)
	if err := a.Seal(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reserve(t.Context(), "k", 1, 0); !errors.Is(err, store.ErrSealed) {
		t.Fatalf("Reserve of a sealed key = %v, want ErrSealed", err)
	}
	if err := b.Delete(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	if r, err := a.Reserve(t.Context(), "k", 2, 7); err != nil || r.Start != 7 {
		t.Errorf("Reserve after the delete = %v, %v; want a range from 7", r, err)
	}
}

// TestKeys_SkipsNamespaceKeys lists range keys among the keys of a namespace whose
// name they share, in pages of one: only the range keys come, in byte order.
func TestKeys_SkipsNamespaceKeys(t *testing.T) {
	t.Parallel()
	st := openStore(t, endpoint(t), newPrefix())
	for _, owner := range []string{"a", "b", "c"} {
		req := store.LeaseRequest{Namespace: "m", OwnerKey: owner, Limit: 4, TTL: time.Hour, Preferred: -1}
		if _, err := st.Acquire(t.Context(), req); err != nil {
			t.Fatal(err)
		}
	}
	keys := []string{"m", "m/slots/0", "m/held", "m/meta!", "n"}
	for _, k := range keys {
		if _, err := st.Reserve(t.Context(), k, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	want := slices.Sorted(slices.Values(keys))
	if got := listKeys(t, st, "", 1); !slices.Equal(got, want) {
		t.Errorf("keys:\n got %q\nwant %q", got, want)
	}
}
