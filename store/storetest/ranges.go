package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid/store"
)

func (k *kit) arguments(t *testing.T) {
	st := k.one(t)
	ok := k.key(t, "ok")
	exact := keyOfLen(ok+"/", store.MaxKeyLen)
	bad := []struct {
		name, key    string
		size, offset int64
		mention      string
	}{
		{"EmptyKey", "", 1, 0, "key"},
		{"KeyOf256Bytes", exact + "x", 1, 0, "key"},
		{"KeyNotUTF8", ok + "\xff", 1, 0, "UTF-8"},
		{"KeyWithNUL", ok + "\x00", 1, 0, "NUL"},
		{"SizeZero", ok, 0, 0, "size"},
		{"SizeNegative", ok, -5, 0, "size"},
		{"OffsetNegative", ok, 1, -1, "initialOffset"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r, err := st.Reserve(t.Context(), tc.key, tc.size, tc.offset)
			if !errors.Is(err, store.ErrInvalidArgument) {
				t.Fatalf("Reserve(%.20q…, %d, %d) = %v, %v; want an error wrapping ErrInvalidArgument", tc.key, tc.size, tc.offset, r, err)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not name %q", err, tc.mention)
			}
		})
	}
	t.Run("SealBadKey", func(t *testing.T) {
		for _, key := range []string{"", exact + "x", "\xff"} {
			if err := st.Seal(t.Context(), key); !errors.Is(err, store.ErrInvalidArgument) && !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("Seal(%.20q…) = %v, want an error wrapping ErrInvalidArgument", key, err)
			}
		}
	})
	t.Run("KeyOf255BytesWithQuotesAndUnicode", func(t *testing.T) {
		r := mustReserve(t, st, exact, 3, 7)
		if r != (store.Range{Start: 7, End: 10}) {
			t.Errorf("first range of a 255-byte key = %v, want [7, 10)", r)
		}
		quoted := k.key(t, `it's "quoted"; -- 雪花 🚀`)
		if r := mustReserve(t, st, quoted, 2, 0); r != (store.Range{Start: 0, End: 2}) {
			t.Errorf("first range of %q = %v, want [0, 2)", quoted, r)
		}
	})
	t.Run("InvalidReserveLeavesNoKey", func(t *testing.T) {
		key := k.key(t, "after-invalid")
		if _, err := st.Reserve(t.Context(), key, 0, 3); err == nil {
			t.Fatal("Reserve with size 0 succeeded")
		}
		if r := mustReserve(t, st, key, 1, 40); r.Start != 40 {
			t.Errorf("first range after a refused reserve = %v, want it to start at 40", r)
		}
	})
}

// closed checks that a closed store refuses its calls with store.ErrClosed, and that
// closing it ends nothing of the backend: a second instance reserves on.
func (k *kit) closed(t *testing.T) {
	stores := k.instances(t, 2)
	key := k.key(t, "k")
	first := mustReserve(t, stores[0], key, 1, 0)
	if err := stores[0].Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if r, err := stores[0].Reserve(t.Context(), key, 1, 0); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Reserve after Close = %v, %v; want an error wrapping store.ErrClosed", r, err)
	}
	if err := stores[0].Seal(t.Context(), key); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Seal after Close: %v, want an error wrapping store.ErrClosed", err)
	}
	if r := mustReserve(t, stores[1], key, 1, 0); r.Start < first.End {
		t.Errorf("Reserve of another instance after the first's Close = %v, want it after %v", r, first)
	}
}

// keyOfLen returns prefix followed by multi-byte runes and a quote, exactly n bytes of
// valid UTF-8.
func keyOfLen(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for b.Len()+len("é")+len("'") <= n {
		b.WriteString("é")
	}
	for b.Len() < n {
		b.WriteByte('\'')
	}
	return b.String()
}

func (k *kit) s1NoOverlapGrowing(t *testing.T) {
	stores := k.instances(t, instanceCount)
	key := k.key(t, "seq")
	var prev store.Range
	for i := range 20 {
		r := mustReserve(t, stores[i%len(stores)], key, int64(1+i%4), 0)
		if i > 0 && r.Start < prev.End {
			t.Fatalf("range %d %v does not follow %v", i, r, prev)
		}
		prev = r
	}

	key = k.key(t, "concurrent")
	var mu sync.Mutex
	var all []store.Range
	concurrently(stores, func(g int, st store.RangeStore) {
		var last store.Range
		for i := range reservesEach {
			r, err := st.Reserve(context.Background(), key, int64(1+(g+i)%7), 0)
			if err != nil {
				t.Errorf("goroutine %d: Reserve: %v", g, err)
				return
			}
			if i > 0 && r.Start < last.End {
				t.Errorf("goroutine %d: range %v does not follow its previous %v", g, r, last)
			}
			last = r
			mu.Lock()
			all = append(all, r)
			mu.Unlock()
		}
	})
	checkDisjoint(t, key, all)
}

// s1GrowingInCompletionOrder checks the real-time order: a reservation that starts
// after another has returned gets a higher range, whichever instance made either.
func (k *kit) s1GrowingInCompletionOrder(t *testing.T) {
	stores := k.instances(t, instanceCount)
	key := k.key(t, "order")
	var completedEnd atomic.Int64 // the highest End of a reservation that has returned
	concurrently(stores, func(g int, st store.RangeStore) {
		for range reservesEach {
			floor := completedEnd.Load()
			r, err := st.Reserve(context.Background(), key, 3, 0)
			if err != nil {
				t.Errorf("goroutine %d: Reserve: %v", g, err)
				return
			}
			if r.Start < floor {
				t.Errorf("goroutine %d: range %v starts below %d, the end of a reservation that returned before this one began", g, r, floor)
			}
			for {
				cur := completedEnd.Load()
				if r.End <= cur || completedEnd.CompareAndSwap(cur, r.End) {
					break
				}
			}
		}
	})
}

func (k *kit) s2FirstRangeAtOffset(t *testing.T) {
	st := k.one(t)
	for _, offset := range []int64{0, 1, 1000, math.MaxInt64 / 2} {
		key := k.key(t, fmt.Sprint("offset-", offset))
		r := mustReserve(t, st, key, 10, offset)
		if r.Start != offset {
			t.Errorf("first range of a new key with initialOffset %d = %v", offset, r)
		}
		again := mustReserve(t, st, key, 5, offset+12345)
		if again.Start != r.End {
			t.Errorf("second range = %v, want it to start at %d: initialOffset applies to a new key only", again, r.End)
		}
	}
}

func (k *kit) s2ConcurrentCreateOnce(t *testing.T) {
	stores := k.instances(t, instanceCount)
	const offset, size = 500, 10
	for round := range createRounds {
		key := k.key(t, fmt.Sprint("round-", round))
		var mu sync.Mutex
		var got []store.Range
		concurrently(stores, func(g int, st store.RangeStore) {
			r, err := st.Reserve(context.Background(), key, size, offset)
			if err != nil {
				t.Errorf("goroutine %d: Reserve: %v", g, err)
				return
			}
			mu.Lock()
			got = append(got, r)
			mu.Unlock()
		})
		atOffset := 0
		for _, r := range got {
			if r.Start == offset {
				atOffset++
			}
			if r.Start < offset {
				t.Errorf("range %v lies below initialOffset %d", r, offset)
			}
		}
		if atOffset != 1 {
			t.Errorf("key %q: %d of %d concurrent first reservations start at initialOffset, want exactly 1", key, atOffset, len(got))
		}
		checkDisjoint(t, key, got)
	}
}

func (k *kit) s3ReturnedRangeIsTruth(t *testing.T) {
	stores := k.instances(t, instanceCount)
	key := k.key(t, "truth")
	var prev store.Range
	for i, size := range []int64{1, 7, 100, 1, 12345, 2, 1 << 40} {
		r := mustReserve(t, stores[i%len(stores)], key, size, 3)
		want := prev.End
		if i == 0 {
			want = 3
		}
		if r.Start != want {
			t.Errorf("reserve %d of size %d = %v, want it to start at %d: with no failure the store moves its value by exactly the size", i, size, r, want)
		}
		prev = r
	}
}

func (k *kit) s4NoDuplicates(t *testing.T) {
	stores := k.instances(t, instanceCount)
	keys := []string{k.key(t, "a"), k.key(t, "b"), k.key(t, "c")}
	var mu sync.Mutex
	got := map[string][]store.Range{}
	concurrently(stores, func(g int, st store.RangeStore) {
		for i := range reservesEach {
			key := keys[(g+i)%len(keys)]
			r, err := st.Reserve(context.Background(), key, int64(1+(g*i)%50), int64(g%3))
			if err != nil {
				t.Errorf("goroutine %d: Reserve(%q): %v", g, key, err)
				return
			}
			mu.Lock()
			got[key] = append(got[key], r)
			mu.Unlock()
		}
	})
	for key, ranges := range got {
		checkDisjoint(t, key, ranges)
	}
}

// s4CanceledReserve cancels reservations while they run: each may fail or succeed,
// but every range that comes back is unique (S4: gaps are allowed, duplicates never).
func (k *kit) s4CanceledReserve(t *testing.T) {
	stores := k.instances(t, instanceCount)
	key := k.key(t, "cancel")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if r, err := stores[0].Reserve(ctx, key, 5, 0); err == nil {
		t.Errorf("Reserve with a canceled context = %v, want an error", r)
	} else if !isContextErr(err) {
		t.Errorf("Reserve with a canceled context: %v, want an error wrapping context.Canceled", err)
	}

	var mu sync.Mutex
	var got []store.Range
	concurrently(stores, func(g int, st store.RangeStore) {
		for i := range reservesEach {
			ctx, cancel := context.WithCancel(context.Background())
			if (g+i)%3 == 0 {
				go cancel() // races the reservation
			}
			r, err := st.Reserve(ctx, key, 4, 0)
			cancel()
			if err != nil {
				if !isContextErr(err) {
					t.Errorf("goroutine %d: Reserve: %v, want success or a context error", g, err)
				}
				continue
			}
			mu.Lock()
			got = append(got, r)
			mu.Unlock()
		}
	})
	checkDisjoint(t, key, got)
	after := mustReserve(t, stores[1], key, 4, 0)
	checkDisjoint(t, key, append(got, after))
}

func (k *kit) s5Exhausted(t *testing.T) {
	st := k.one(t)
	const maxV = math.MaxInt64

	key := k.key(t, "to-the-end")
	if r := mustReserve(t, st, key, 10, maxV-10); r != (store.Range{Start: maxV - 10, End: maxV}) {
		t.Fatalf("last range = %v, want [%d, %d)", r, int64(maxV-10), int64(maxV))
	}
	checkExhausted(t, st, key, 1, 0)

	key = k.key(t, "too-big")
	checkExhausted(t, st, key, 10, maxV-5)
	if r := mustReserve(t, st, key, 5, maxV-5); r.Start != maxV-5 {
		t.Errorf("after a refused first reservation, the key starts at %d, want initialOffset %d", r.Start, int64(maxV-5))
	}

	key = k.key(t, "unchanged")
	mustReserve(t, st, key, 1, maxV-4)
	checkExhausted(t, st, key, 4, 0)
	if r := mustReserve(t, st, key, 3, 0); r != (store.Range{Start: maxV - 3, End: maxV}) {
		t.Errorf("after a refused reservation = %v, want [%d, %d): the refusal must leave the key unchanged", r, int64(maxV-3), int64(maxV))
	}

	key = k.key(t, "whole")
	if r := mustReserve(t, st, key, maxV, 0); r != (store.Range{Start: 0, End: maxV}) {
		t.Errorf("the whole range = %v, want [0, %d)", r, int64(maxV))
	}
	checkExhausted(t, st, key, 1, 0)
	checkExhausted(t, st, k.key(t, "at-max"), 1, maxV)
	checkExhausted(t, st, k.key(t, "huge"), maxV, 1)
}

func checkExhausted(t *testing.T, st store.RangeStore, key string, size, offset int64) {
	t.Helper()
	r, err := st.Reserve(t.Context(), key, size, offset)
	if !errors.Is(err, store.ErrExhausted) {
		t.Errorf("Reserve(%q, %d, %d) = %v, %v; want an error wrapping ErrExhausted", key, size, offset, r, err)
		return
	}
	if !strings.Contains(err.Error(), key) {
		t.Errorf("error %q does not name the key %q", err, key)
	}
}

func (k *kit) s6SealedNeverRecreated(t *testing.T) {
	stores := k.instances(t, instanceCount)
	key := k.key(t, "sealed")
	mustReserve(t, stores[0], key, 5, 0)
	if err := stores[0].Seal(t.Context(), key); errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("the store cannot seal: %v", err)
	} else if err != nil {
		t.Fatalf("Seal(%q): %v", key, err)
	}
	for i, st := range stores {
		checkSealed(t, st, key, i)
	}
	if err := stores[1].Seal(t.Context(), key); err != nil {
		t.Errorf("sealing a sealed key again: %v", err)
	}
	checkSealed(t, stores[0], key, 0)

	missing := k.key(t, "never-reserved")
	if err := stores[1].Seal(t.Context(), missing); err != nil {
		t.Fatalf("Seal of a missing key: %v", err)
	}
	for i, st := range stores {
		checkSealed(t, st, missing, i)
	}
}

func checkSealed(t *testing.T, st store.RangeStore, key string, instance int) {
	t.Helper()
	r, err := st.Reserve(t.Context(), key, 1, 0)
	if !errors.Is(err, store.ErrSealed) {
		t.Errorf("instance %d: Reserve of sealed %q = %v, %v; want an error wrapping ErrSealed", instance, key, r, err)
		return
	}
	if !strings.Contains(err.Error(), key) {
		t.Errorf("error %q does not name the key %q", err, key)
	}
}

// s6SealDuringReserves seals a key while goroutines reserve it: every reservation
// that starts after Seal returned fails, and the ranges handed out before stay unique.
func (k *kit) s6SealDuringReserves(t *testing.T) {
	stores := k.instances(t, instanceCount)
	key := k.key(t, "race")
	mustReserve(t, stores[0], key, 1, 0)
	var sealed atomic.Bool
	var mu sync.Mutex
	var got []store.Range
	concurrently(stores, func(g int, st store.RangeStore) {
		if g == 0 {
			if err := st.Seal(context.Background(), key); err != nil {
				if !errors.Is(err, errors.ErrUnsupported) {
					t.Errorf("Seal: %v", err)
				}
				return
			}
			sealed.Store(true)
			return
		}
		for range reservesEach {
			after := sealed.Load()
			r, err := st.Reserve(context.Background(), key, 2, 0)
			switch {
			case err == nil && after:
				t.Errorf("goroutine %d: Reserve started after Seal returned and got %v", g, r)
			case err == nil:
				mu.Lock()
				got = append(got, r)
				mu.Unlock()
			case !errors.Is(err, store.ErrSealed):
				t.Errorf("goroutine %d: Reserve: %v", g, err)
			}
		}
	})
	checkDisjoint(t, key, got)
}
