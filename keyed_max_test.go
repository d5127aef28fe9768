package cosid

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// sharedMem is a memory store that outlives the runtimes on it, as a database
// outlives the processes that use it: closing a runtime leaves it open.
type sharedMem struct{ *memstore.Store }

func (sharedMem) Close() error { return nil }

// maxKeysConfig has keyed templates with max-keys 3: a segment one and a periodic one.
const maxKeysConfig = `
cosid:
  namespace: mk
  stores:
    mem: { type: memory }
  generators:
    inv: { strategy: segment, store: mem, keyed: true, max-keys: 3, max-live-keys: 2 }
    day: { strategy: periodic-segment, store: mem, keyed: true, period: YEAR_MONTH_DAY, zone: UTC, max-keys: 1 }
`

// openOn opens maxKeysConfig as a process on st would, closed when t ends.
func openOn(t *testing.T, st store.RangeStore) *Runtime {
	t.Helper()
	cfg, err := ParseConfig([]byte(maxKeysConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := Open(t.Context(), cfg, WithLogger(nil), WithStoreWrapper(func(_, _ string, _ store.RangeStore) store.RangeStore { return st }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// nextKey takes an id of key of generator name of rt.
func nextKey(t *testing.T, rt *Runtime, name, key string) error {
	t.Helper()
	src, err := rt.Source(name, key)
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Next(t.Context())
	return err
}

// TestMaxKeys_SharedByReplicas checks that two runtimes on one store share a
// template's max-keys: the keys either made count for both, and a key the store
// holds opens on the other without counting.
func TestMaxKeys_SharedByReplicas(t *testing.T) {
	st := sharedMem{memstore.New()}
	a, b := openOn(t, st), openOn(t, st)
	for _, step := range []struct {
		rt      *Runtime
		who     string
		key     string
		refused bool
	}{
		{a, "A", "k1", false},
		{a, "A", "k2", false},
		{b, "B", "k3", false},
		{b, "B", "k4", true},
		{a, "A", "k4", true},
		{b, "B", "k1", false}, // made by A: in the store, not new
		{a, "A", "k3", false},
		{a, "A", "k5", true},
	} {
		err := nextKey(t, step.rt, "inv", step.key)
		if got := errors.Is(err, ErrMaxKeys); got != step.refused || (!step.refused && err != nil) {
			t.Fatalf("%s opens %s: %v; want refused with ErrMaxKeys: %v", step.who, step.key, err, step.refused)
		}
		if step.refused && !strings.Contains(err.Error(), "cosid.generators.inv.max-keys") {
			t.Fatalf("%s opens %s: %v; want the setting named", step.who, step.key, err)
		}
	}
}

// TestMaxKeys_SurvivesRestart checks that the count of keys made is in the store:
// a runtime opened again refuses a new key past max-keys, and serves the old ones.
func TestMaxKeys_SurvivesRestart(t *testing.T) {
	st := sharedMem{memstore.New()}
	first := openOn(t, st)
	for _, key := range []string{"k1", "k2", "k3"} {
		if err := nextKey(t, first, "inv", key); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := openOn(t, st)
	if err := nextKey(t, again, "inv", "k4"); !errors.Is(err, ErrMaxKeys) {
		t.Fatalf("a new key after a restart: %v, want ErrMaxKeys", err)
	}
	for _, key := range []string{"k1", "k2", "k3"} {
		if err := nextKey(t, again, "inv", key); err != nil {
			t.Fatalf("key %s, made before the restart: %v", key, err)
		}
	}
}

// TestMaxKeys_Periodic_KeyOfItsPeriods checks that a periodic template's key is
// found by its periods' store keys, and that a key that only begins like it (k-x
// of k, which sorts before k's periods) is not taken for it.
func TestMaxKeys_Periodic_KeyOfItsPeriods(t *testing.T) {
	st := sharedMem{memstore.New()}
	a, b := openOn(t, st), openOn(t, st)
	if err := nextKey(t, a, "day", "k"); err != nil {
		t.Fatal(err)
	}
	if err := nextKey(t, b, "day", "k"); err != nil {
		t.Fatalf("key k on a second runtime: %v, want served (it is in the store)", err)
	}
	if err := nextKey(t, b, "day", "k-x"); !errors.Is(err, ErrMaxKeys) {
		t.Fatalf("key k-x: %v, want ErrMaxKeys", err)
	}
}

// TestMaxKeys_EveryWayToAnIdCountsANewKey takes the ids of new keys of a template
// with max-keys 3 by each way to an id: the fourth key is refused with ErrMaxKeys,
// naming the setting, and a key made before still serves.
func TestMaxKeys_EveryWayToAnIdCountsANewKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		next func(ctx context.Context, src Source) error
	}{
		{"Next", func(ctx context.Context, src Source) error { _, err := src.Next(ctx); return err }},
		{"NextInt", func(ctx context.Context, src Source) error { _, err := src.NextInt(ctx); return err }},
		{"NextRange", func(ctx context.Context, src Source) error { _, err := src.NextRange(ctx, 5); return err }},
		{"Take", func(ctx context.Context, src Source) error { _, err := src.Take(ctx, 3); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := openOn(t, sharedMem{memstore.New()})
			for i, key := range []string{"k1", "k2", "k3", "k4", "k1"} {
				src, err := rt.Source("inv", key)
				if err != nil {
					t.Fatal(err)
				}
				err = tc.next(t.Context(), src)
				if refused := i == 3; errors.Is(err, ErrMaxKeys) != refused || !refused && err != nil {
					t.Fatalf("%s of key %s, the %d-th: %v; want refused with ErrMaxKeys: %v", tc.name, key, i+1, err, refused)
				}
				if i == 3 && !strings.Contains(err.Error(), "cosid.generators.inv.max-keys") {
					t.Errorf("the refusal %q does not name cosid.generators.inv.max-keys", err)
				}
			}
		})
	}
}

// TestMaxKeys_NeverMoreThanMax_Concurrent checks that runtimes opening new keys at
// once never make more than max-keys of them: a race counts over, never under.
func TestMaxKeys_NeverMoreThanMax_Concurrent(t *testing.T) {
	st := sharedMem{memstore.New()}
	rts := []*Runtime{openOn(t, st), openOn(t, st), openOn(t, st)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	made := map[string]bool{}
	for i := range 30 {
		wg.Go(func() {
			key := fmt.Sprintf("c%d", i%10) // each key asked by three callers
			src, err := rts[i%3].Source("inv", key)
			if err != nil {
				t.Error(err)
				return
			}
			_, err = src.Next(t.Context())
			switch {
			case err == nil:
				mu.Lock()
				made[key] = true
				mu.Unlock()
			case !errors.Is(err, ErrMaxKeys):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(made) > 3 || len(made) == 0 {
		t.Fatalf("%d keys made (%v); want 1–3", len(made), made)
	}
	keys, err := st.Keys(t.Context(), "mk/inv/", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 3 {
		t.Fatalf("the store holds %d keys of inv; want at most 3", len(keys))
	}
}

// TestMaxKeys_ConfigErrors checks that max-keys is refused where it cannot be,
// with its YAML path.
func TestMaxKeys_ConfigErrors(t *testing.T) {
	for _, tc := range []struct{ gen, want string }{
		{"{ strategy: segment, store: mem, max-keys: 5 }", "cosid.generators.g.max-keys: only a keyed generator takes it"},
		{"{ strategy: segment, store: mem, keyed: true, max-keys: 0 }", "cosid.generators.g.max-keys: 0, want ≥ 1"},
		{"{ strategy: segment, store: mem, keyed: true, max-keys: -4 }", "cosid.generators.g.max-keys: -4, want ≥ 1"},
		{"{ strategy: snowflake, store: mem, max-keys: 5 }", "max-keys"},
	} {
		cfg, err := ParseConfig([]byte("cosid:\n  stores: { mem: { type: memory } }\n  generators:\n    g: " + tc.gen + "\n"))
		if err == nil {
			err = cfg.Validate()
		}
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a config error with %q", tc.gen, err, tc.want)
		}
	}
}
