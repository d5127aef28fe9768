package redisstore_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// TestReserve_S5_ExactNearMaxInt64 reserves ranges whose values Lua's doubles cannot
// hold (above 2^53, up to math.MaxInt64): each range is exact, the key reaches
// math.MaxInt64 and no further, and a refused reservation leaves the key as it was.
func TestReserve_S5_ExactNearMaxInt64(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	st := openStore(t, addr, redisstore.WithPrefix(prefix))
	raw := newClient(t, addr)
	const maxInt = math.MaxInt64
	type step struct {
		size, offset int64
		want         store.Range // zero: ErrExhausted
	}
	tests := []struct {
		name  string
		steps []step
		left  string // the key's next value at the end; "" for no key
	}{
		{"Across2^53", []step{
			{1, 1<<53 - 2, store.Range{Start: 1<<53 - 2, End: 1<<53 - 1}},
			{1, 0, store.Range{Start: 1<<53 - 1, End: 1 << 53}},
			{1, 0, store.Range{Start: 1 << 53, End: 1<<53 + 1}},
			{2, 0, store.Range{Start: 1<<53 + 1, End: 1<<53 + 3}},
		}, strconv.FormatInt(1<<53+3, 10)},
		{"Above2^53", []step{
			{1, 1<<53 + 1, store.Range{Start: 1<<53 + 1, End: 1<<53 + 2}},
			{3, 0, store.Range{Start: 1<<53 + 2, End: 1<<53 + 5}},
		}, strconv.FormatInt(1<<53+5, 10)},
		{"UpToMaxInt64", []step{
			{3, maxInt - 10, store.Range{Start: maxInt - 10, End: maxInt - 7}},
			{7, 0, store.Range{Start: maxInt - 7, End: maxInt}},
			{1, 0, store.Range{}},
			{maxInt, 0, store.Range{}},
		}, strconv.FormatInt(maxInt, 10)},
		{"OnePastMaxInt64LeavesTheKey", []step{
			{5, maxInt - 13, store.Range{Start: maxInt - 13, End: maxInt - 8}},
			{9, 0, store.Range{}},
			{8, 0, store.Range{Start: maxInt - 8, End: maxInt}},
		}, strconv.FormatInt(maxInt, 10)},
		{"NewKeyPastMaxInt64IsNotCreated", []step{
			{2, maxInt - 1, store.Range{}},
			{maxInt, 1, store.Range{}},
		}, ""},
		{"WholeRange", []step{
			{maxInt, 0, store.Range{Start: 0, End: maxInt}},
			{1, 0, store.Range{}},
		}, strconv.FormatInt(maxInt, 10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "exact/" + tc.name
			for i, s := range tc.steps {
				r, err := st.Reserve(t.Context(), key, s.size, s.offset)
				if s.want == (store.Range{}) {
					if !errors.Is(err, store.ErrExhausted) {
						t.Fatalf("step %d: Reserve(%d, %d) = %v, %v; want ErrExhausted", i, s.size, s.offset, r, err)
					}
					continue
				}
				if err != nil || r != s.want {
					t.Fatalf("step %d: Reserve(%d, %d) = %v, %v; want %v", i, s.size, s.offset, r, err, s.want)
				}
			}
			got, err := raw.HGet(t.Context(), redisstore.RangeKey(prefix, key), "next").Result()
			if tc.left == "" {
				if n, _ := raw.Exists(t.Context(), redisstore.RangeKey(prefix, key)).Result(); n != 0 {
					t.Errorf("a refused first reservation left the key with next %q", got)
				}
				return
			}
			if err != nil || got != tc.left {
				t.Errorf("next value %q, %v; want %s", got, err, tc.left)
			}
		})
	}
}
