package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/store"
)

// The S7 cases of RunRangeStore: a store.GiveBacker lowers a key's next value only
// from the end of the caller's own last range, only when no one reserved since, and
// never below an id handed out. Each skips a store that implements no GiveBacker.
func (k *kit) runGiveBack(t *testing.T) {
	t.Run("S7_GiveBackLowersNext", k.s7LowersNext)
	t.Run("S7_NotAfterAnotherReserve", k.s7NotAfterAnotherReserve)
	t.Run("S7_NeverBelow", k.s7NeverBelow)
	t.Run("S7_RacingReservesNoDuplicates", k.s7RacingReserves)
	t.Run("S7_SealedKeyUnchanged", k.s7SealedKeyUnchanged)
	t.Run("S7_MissingKeyUnchanged", k.s7MissingKeyUnchanged)
	t.Run("S7_Arguments", k.s7Arguments)
	t.Run("S7_Closed", k.s7Closed)
}

// giveBackers opens n stores on one backend as store.GiveBackers, or skips t when
// the store implements none.
func (k *kit) giveBackers(t *testing.T, n int) []store.RangeStore {
	t.Helper()
	stores := k.instances(t, n)
	if _, ok := stores[0].(store.GiveBacker); !ok {
		t.Skip("the store implements no store.GiveBacker: S7 is optional")
	}
	return stores
}

func giveBack(t *testing.T, st store.RangeStore, key string, tail store.Range) bool {
	t.Helper()
	ok, err := st.(store.GiveBacker).GiveBack(t.Context(), key, tail)
	if err != nil {
		t.Fatalf("GiveBack(%q, %v): %v", key, tail, err)
	}
	return ok
}

// checkNext fails t unless the next Reserve of key (size 1) starts at want.
func checkNext(t *testing.T, st store.RangeStore, key string, want int64, why string) {
	t.Helper()
	if r := mustReserve(t, st, key, 1, 0); r.Start != want {
		t.Errorf("key %q: next Reserve = %v, want it to start at %d: %s", key, r, want, why)
	}
}

// s7LowersNext gives back the tail of the last range of a key, from the instance
// that reserved it: the next Reserve, on either instance, starts at the tail's start.
func (k *kit) s7LowersNext(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	tests := []struct {
		name string
		used int64 // values of the range [100, 110) handed out before the give-back
	}{
		{"NoneUsed", 0},
		{"SomeUsed", 4},
		{"AllButOne", 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := k.key(t, "k")
			r := mustReserve(t, stores[0], key, 10, 100)
			tail := store.Range{Start: r.Start + tc.used, End: r.End}
			if !giveBack(t, stores[0], key, tail) {
				t.Fatalf("GiveBack(%q, %v) right after reserving %v = false, want true", key, tail, r)
			}
			checkNext(t, stores[1], key, tail.Start, "a give-back lowers the next value to the tail's start")
		})
	}
}

// s7NotAfterAnotherReserve gives back the tail of a range after another instance
// reserved the key: the give-back changes nothing, while the other instance, whose
// range is the last, may give back its own.
func (k *kit) s7NotAfterAnotherReserve(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	key := k.key(t, "k")
	first := mustReserve(t, stores[0], key, 10, 0)
	second := mustReserve(t, stores[1], key, 10, 0)
	if giveBack(t, stores[0], key, store.Range{Start: first.Start + 3, End: first.End}) {
		t.Fatalf("GiveBack of %v's tail after %v was reserved = true, want false: the values after %d may be handed out", first, second, first.End)
	}
	tail := store.Range{Start: second.Start + 2, End: second.End}
	if !giveBack(t, stores[1], key, tail) {
		t.Fatalf("GiveBack(%q, %v) of the last range = false, want true", key, tail)
	}
	checkNext(t, stores[0], key, tail.Start, "only the give-back of the last range applies")
}

// s7NeverBelow gives back tails whose end is not the key's next value: none changes
// it, nor does a second give-back of a tail already given back.
func (k *kit) s7NeverBelow(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	key := k.key(t, "k")
	r := mustReserve(t, stores[0], key, 10, 10) // [10, 20)
	refused := []struct {
		name string
		tail store.Range
	}{
		{"EndBelowNext", store.Range{Start: 12, End: 19}},
		{"EndAboveNext", store.Range{Start: 15, End: 21}},
		{"BelowTheRange", store.Range{Start: 2, End: 10}},
		{"AboveTheRange", store.Range{Start: 20, End: 30}},
	}
	for _, tc := range refused {
		if giveBack(t, stores[0], key, tc.tail) {
			t.Fatalf("%s: GiveBack(%q, %v) after reserving %v = true, want false", tc.name, key, tc.tail, r)
		}
	}
	tail := store.Range{Start: 15, End: 20}
	if !giveBack(t, stores[0], key, tail) {
		t.Fatalf("GiveBack(%q, %v) after reserving %v = false, want true", key, tail, r)
	}
	for _, again := range []store.Range{tail, {Start: 12, End: 20}} {
		if giveBack(t, stores[1], key, again) {
			t.Fatalf("GiveBack(%q, %v) after %v was given back = true, want false: the next value is %d now", key, again, tail, tail.Start)
		}
	}
	checkNext(t, stores[1], key, tail.Start, "a refused give-back changes nothing")
}

// s7RacingReserves races give-backs against reserves on two instances (S4 with S7):
// each goroutine hands out a part of every range it reserves and gives back the
// rest, and no value is handed out twice. In each round every goroutine reserves
// before any gives back, so that at most one give-back of the round may lower the
// value, while the give-backs race the next round's reserves.
func (k *kit) s7RacingReserves(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	key := k.key(t, "race")
	// Fewer rounds than reservesEach: every round waits for its slowest reserve,
	// which with a durable store in transactions is slow.
	const size, roundCount = 4, 10
	rounds := make([]sync.WaitGroup, roundCount)
	for i := range rounds {
		rounds[i].Add(goroutines)
	}
	var mu sync.Mutex
	var handed []store.Range
	concurrently(stores, func(g int, st store.RangeStore) {
		for i := range roundCount {
			r, err := st.Reserve(context.Background(), key, size, 0)
			rounds[i].Done()
			rounds[i].Wait()
			if err != nil {
				t.Errorf("goroutine %d: Reserve: %v", g, err)
				continue
			}
			used := int64((g + i) % (size + 1))
			if used > 0 {
				mu.Lock()
				handed = append(handed, store.Range{Start: r.Start, End: r.Start + used})
				mu.Unlock()
			}
			if used == size {
				continue
			}
			tail := store.Range{Start: r.Start + used, End: r.End}
			if _, err := st.(store.GiveBacker).GiveBack(context.Background(), key, tail); err != nil {
				t.Errorf("goroutine %d: GiveBack(%v): %v", g, tail, err)
			}
		}
	})
	last := mustReserve(t, stores[1], key, size, 0)
	checkDisjoint(t, key, append(handed, last))
}

// s7SealedKeyUnchanged gives back the tail of a key's last range after the key was
// sealed: the give-back changes nothing and the key stays sealed.
func (k *kit) s7SealedKeyUnchanged(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	key := k.key(t, "sealed")
	r := mustReserve(t, stores[0], key, 5, 0)
	if err := stores[1].Seal(t.Context(), key); errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("the store cannot seal: %v", err)
	} else if err != nil {
		t.Fatalf("Seal(%q): %v", key, err)
	}
	tail := store.Range{Start: r.Start + 1, End: r.End}
	if giveBack(t, stores[0], key, tail) {
		t.Errorf("GiveBack(%q, %v) of a sealed key = true, want false", key, tail)
	}
	checkSealed(t, stores[0], key, 0)
	if a, ok := stores[0].(store.Admin); ok {
		page, err := a.Keys(t.Context(), key, "", 1)
		if err != nil {
			// A store may have admin calls it cannot make here (the http store's
			// server serves them only behind an admin token); RunAdmin checks them.
			t.Logf("Keys(%q): %v: the key's next value is not read", key, err)
			return
		}
		if len(page) != 1 || page[0].Next != r.End || !page[0].Sealed {
			t.Errorf("after a give-back of a sealed key, Keys(%q) = %+v, want next %d, sealed", key, page, r.End)
		}
	}
}

// s7MissingKeyUnchanged gives back a tail of a key that does not exist: it is not
// created, so its first Reserve still starts at its initial offset.
func (k *kit) s7MissingKeyUnchanged(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	key := k.key(t, "missing")
	tail := store.Range{Start: 0, End: 5}
	if giveBack(t, stores[0], key, tail) {
		t.Errorf("GiveBack(%q, %v) of a missing key = true, want false", key, tail)
	}
	if r := mustReserve(t, stores[1], key, 1, 40); r.Start != 40 {
		t.Errorf("first Reserve after a give-back of the missing key = %v, want it to start at initialOffset 40: the give-back created the key", r)
	}
}

// s7Arguments gives back with bad arguments: each fails with ErrInvalidArgument
// naming what is wrong, and the key keeps its value.
func (k *kit) s7Arguments(t *testing.T) {
	st := k.giveBackers(t, 1)[0]
	key := k.key(t, "k")
	r := mustReserve(t, st, key, 10, 0)
	bad := []struct {
		name, key string
		tail      store.Range
		mention   string
	}{
		{"EmptyKey", "", store.Range{Start: 5, End: 10}, "key"},
		{"KeyOf256Bytes", keyOfLen(key+"/", store.MaxKeyLen) + "x", store.Range{Start: 5, End: 10}, "key"},
		{"KeyNotUTF8", key + "\xff", store.Range{Start: 5, End: 10}, "UTF-8"},
		{"KeyWithNUL", key + "\x00", store.Range{Start: 5, End: 10}, "NUL"},
		{"EmptyTail", key, store.Range{Start: 10, End: 10}, "tail"},
		{"TailBackwards", key, store.Range{Start: 11, End: 10}, "tail"},
		{"StartNegative", key, store.Range{Start: -1, End: 10}, "tail"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := st.(store.GiveBacker).GiveBack(t.Context(), tc.key, tc.tail)
			if !errors.Is(err, store.ErrInvalidArgument) {
				t.Fatalf("GiveBack(%.20q…, %v) = %v, %v; want an error wrapping ErrInvalidArgument", tc.key, tc.tail, ok, err)
			}
			if ok {
				t.Errorf("GiveBack(%.20q…, %v) failed but reported true", tc.key, tc.tail)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not name %q", err, tc.mention)
			}
		})
	}
	checkNext(t, st, key, r.End, "a refused give-back changes nothing")
}

// s7Closed gives back on a closed store: it fails with ErrClosed and the key keeps
// its value for the other instance.
func (k *kit) s7Closed(t *testing.T) {
	stores := k.giveBackers(t, instanceCount)
	key := k.key(t, "k")
	r := mustReserve(t, stores[0], key, 10, 0)
	if err := stores[0].Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	tail := store.Range{Start: r.Start + 1, End: r.End}
	if ok, err := stores[0].(store.GiveBacker).GiveBack(t.Context(), key, tail); !errors.Is(err, store.ErrClosed) {
		t.Errorf("GiveBack after Close = %v, %v; want an error wrapping store.ErrClosed", ok, err)
	}
	checkNext(t, stores[1], key, r.End, "a closed store's give-back changes nothing")
}
