package zkstore_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
	"github.com/cosid-go/cosid/store/zkstore"
)

// TestAdminKit runs the admin test kit; every store it opens has a connection and a
// session of its own, as a second process would.
func TestAdminKit(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	storetest.RunAdmin(t, func(t *testing.T) store.Admin {
		return openStore(t, addr, zkstore.WithRoot(root))
	})
}

// TestKeys_ByteOrderNotEscapedOrder checks that keys are paged in the byte order of
// the keys, not in that of their escaped znode names, which differs ('.' escapes to
// "%2E", below '-'), for pages of every size from 1 to past the last.
func TestKeys_ByteOrderNotEscapedOrder(t *testing.T) {
	t.Parallel()
	addr := server(t)
	st := openStore(t, addr, zkstore.WithRoot(testRoot(t, addr)))
	keys := []string{"a", "a-", "a.", "a0", "aA", "a_", "a~", "a日", "a\u007f", "a%", "a/b", "a b", "ab", "b", "%41", "-", "日付", "\U0010FFFF"}
	for i, k := range keys {
		if _, err := st.Reserve(t.Context(), k, int64(i+1), 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix string
		pages  []int
	}{
		{"", []int{1, 2, 5, 100}},
		{"a", []int{1, 3, 13, 14}},
		{"a.", []int{1}},
		{"日", []int{1, 2}},
		{"z", []int{1}},
	}
	for _, tt := range tests {
		var want []string
		for _, k := range keys {
			if strings.HasPrefix(k, tt.prefix) {
				want = append(want, k)
			}
		}
		slices.Sort(want)
		for _, page := range tt.pages {
			var got []string
			for k, err := range store.AllKeys(t.Context(), st, tt.prefix, page) {
				if err != nil {
					t.Fatalf("AllKeys(%q, %d): %v", tt.prefix, page, err)
				}
				if wantNext := int64(slices.Index(keys, k.Key) + 1); k.Next != wantNext {
					t.Errorf("key %+q has next value %d, want %d", k.Key, k.Next, wantNext)
				}
				got = append(got, k.Key)
			}
			if !slices.Equal(got, want) {
				t.Errorf("AllKeys(%q) in pages of %d = %+q,\n want %+q", tt.prefix, page, got, want)
			}
		}
	}
}

// TestKeys_After checks where a page starts for values of after below, inside and
// above the prefix's keys, present among the keys or not.
func TestKeys_After(t *testing.T) {
	t.Parallel()
	addr := server(t)
	st := openStore(t, addr, zkstore.WithRoot(testRoot(t, addr)))
	for _, k := range []string{"a", "a1", "a.", "b", "b1", "b2", "c"} {
		if _, err := st.Reserve(t.Context(), k, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix, after string
		want          []string
	}{
		{"b", "a", []string{"b", "b1", "b2"}},
		{"b", "a1", []string{"b", "b1", "b2"}},
		{"b", "b", []string{"b1", "b2"}},
		{"b", "b0", []string{"b1", "b2"}},
		{"b", "b2", nil},
		{"b", "c", nil},
		{"", "a.", []string{"a1", "b", "b1", "b2", "c"}},
		{"", "d", nil},
		{"a", "", []string{"a", "a.", "a1"}},
	}
	for _, tt := range tests {
		page, err := st.Keys(t.Context(), tt.prefix, tt.after, 10)
		var got []string
		for _, k := range page {
			got = append(got, k.Key)
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Keys(%q, after %q) = %q, %v; want %q", tt.prefix, tt.after, got, err, tt.want)
		}
	}
}

// TestKeys_ListingFollowsChanges checks that the pages after the first see the keys
// that other stores created and deleted after it, though they reuse its listing
// while the range znodes stay the same.
func TestKeys_ListingFollowsChanges(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	a := openStore(t, addr, zkstore.WithRoot(root))
	b := openStore(t, addr, zkstore.WithRoot(root))
	names := func(page []store.KeyInfo, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range page {
			got = append(got, k.Key)
		}
		return got
	}
	for _, k := range []string{"k1", "k2", "k3", "k4"} {
		if _, err := b.Reserve(t.Context(), k, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name   string
		change func() error
		after  string
		want   []string
	}{
		{"unchanged", func() error { return nil }, "", []string{"k1", "k2"}},
		{"unchanged again", func() error { return nil }, "k2", []string{"k3", "k4"}},
		{"created", func() error { _, err := b.Reserve(t.Context(), "k25", 1, 0); return err }, "k2", []string{"k25", "k3"}},
		{"deleted", func() error { return b.Delete(t.Context(), "k25") }, "k2", []string{"k3", "k4"}},
		{"deleted by itself", func() error { return a.Delete(t.Context(), "k3") }, "k2", []string{"k4"}},
		{"value changed", func() error { _, err := b.RaiseTo(t.Context(), "k4", 99); return err }, "k3", []string{"k4"}},
	}
	for _, step := range steps {
		if err := step.change(); err != nil {
			t.Fatal(err)
		}
		if got := names(a.Keys(t.Context(), "k", step.after, 2)); !slices.Equal(got, step.want) {
			t.Errorf("%s: Keys after %q = %q, want %q", step.name, step.after, got, step.want)
		}
	}
	if page, err := a.Keys(t.Context(), "k4", "", 1); err != nil || len(page) != 1 || page[0].Next != 99 {
		t.Errorf("Keys(k4) after another store raised it to 99 = %+v, %v", page, err)
	}
}

// TestKeys_CorruptName checks that a znode among the range znodes whose name escape
// never writes fails Keys with ErrCorrupt naming it, instead of listing a guess.
func TestKeys_CorruptName(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	st := openStore(t, addr, zkstore.WithRoot(root))
	if _, err := st.Reserve(t.Context(), "good", 1, 0); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.b", "%41", "%zz"} {
		path := root + "/ranges/" + name
		if _, err := connect(t, addr).Create(path, []byte(`{"next":1}`), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		_, err := st.Keys(t.Context(), "", "", 10)
		if !errors.Is(err, zkstore.ErrCorrupt) || !strings.Contains(err.Error(), path) {
			t.Errorf("Keys beside %s = %v, want ErrCorrupt naming it", path, err)
		}
		if err := connect(t, addr).Delete(path, -1); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRaiseTo_BeforeIsFresh checks that RaiseTo reports and compares with the value
// on the ensemble, not the one this store remembers from its last reservation, which
// another process has since moved.
func TestRaiseTo_BeforeIsFresh(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	a := openStore(t, addr, zkstore.WithRoot(root))
	b := openStore(t, addr, zkstore.WithRoot(root))
	for _, to := range []int64{5, 15, 25} {
		key := fmt.Sprint("k", to)
		for _, st := range []*zkstore.Store{a, b} {
			if _, err := st.Reserve(t.Context(), key, 10, 0); err != nil {
				t.Fatal(err)
			}
		}
		got, err := a.RaiseTo(t.Context(), key, to)
		if want := (store.Raised{Key: key, Before: 20, After: max(20, to)}); err != nil || got != want {
			t.Errorf("RaiseTo(%d) after another store reserved up to 20 = %+v, %v; want %+v", to, got, err, want)
		}
		if r, err := a.Reserve(t.Context(), key, 1, 0); err != nil || r.Start != max(20, to) {
			t.Errorf("Reserve after the raise to %d = %v, %v; want it to start at %d", to, r, err, max(20, to))
		}
	}
}

// TestRaiseFloor_RowOfFenceZero checks the row RaiseFloor writes for a slot never
// taken: fence 0 and the raised floor only, which the parser accepts (and no other
// row of fence 0), and which the slot's first Acquire turns into fence 1 with that
// floor (L2, L3).
func TestRaiseFloor_RowOfFenceZero(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	st := openStore(t, addr, zkstore.WithRoot(root))
	const floor = 1 << 42
	req := store.FloorRequest{Namespace: "ns", Limit: 2, Tolerance: time.Second, Slot: 1, FloorMs: floor}
	if _, err := st.RaiseFloor(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	data, _, err := connect(t, addr).Get(root + "/slots/ns/1")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := zkstore.ParseRow(data); err != nil || r.Fence != 0 || r.NextFloorMs != floor {
		t.Errorf("the row of the raised floor %s parses to %+v, %v", data, r, err)
	}
	l, err := st.Acquire(t.Context(), store.LeaseRequest{Namespace: "ns", OwnerKey: "o", Limit: 2, Tolerance: time.Second, TTL: time.Minute, Preferred: 1})
	if err != nil || l.Slot != 1 || l.Fence != 1 || l.Floor != floor {
		t.Errorf("Acquire after RaiseFloor = %+v, %v; want slot 1, fence 1, floor %d", l, err, floor)
	}
	for _, row := range []string{
		`{"fence":0}`,
		`{"fence":0,"nextFloorMs":0}`,
		`{"fence":-1,"nextFloorMs":5}`,
		`{"fence":0,"nextFloorMs":5,"lastOwner":"a"}`,
		`{"fence":0,"nextFloorMs":5,"floorMs":5}`,
		`{"owner":"a","incarnation":"i","fence":0,"nextFloorMs":5}`,
	} {
		if r, err := zkstore.ParseRow([]byte(row)); err == nil {
			t.Errorf("ParseRow(%s) = %+v, want an error", row, r)
		}
	}
}

// FuzzUnescape checks that Unescape accepts exactly the names Escape writes, and
// gives back the name they came from.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"a%2Eb", "a.b", "%41", "%2e", "%zz", "%", "abc-_", "%E6%97%A5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if key, ok := zkstore.Unescape(s); ok && zkstore.Escape(key) != s {
			t.Fatalf("Unescape(%q) = %q, which escapes to %q", s, key, zkstore.Escape(key))
		}
		if key, ok := zkstore.Unescape(zkstore.Escape(s)); !ok || key != s {
			t.Fatalf("Unescape(Escape(%q)) = %q, %v", s, key, ok)
		}
	})
}
