package cosid_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// gatedStore holds back the second Reserve of the store key gated until gate
// closes or the reservation is canceled, as a slow store would.
type gatedStore struct {
	store.RangeStore
	gated string
	gate  chan struct{}

	mu       sync.Mutex
	reserves int // of gated
}

func (s *gatedStore) Reserve(ctx context.Context, key string, size, offset int64) (store.Range, error) {
	if key == s.gated {
		s.mu.Lock()
		s.reserves++
		hold := s.reserves == 2
		s.mu.Unlock()
		if hold {
			select {
			case <-s.gate:
			case <-ctx.Done():
				return store.Range{}, ctx.Err()
			}
		}
	}
	return s.RangeStore.Reserve(ctx, key, size, offset)
}

// TestSource_KeyedCallWhoseKeyClosesUnderItTakesTheKeyAgain has a call on the key
// used most recently (the path that holds no count of calls on the key) wait for
// its key's next range, and evicts the key under it: the call gets an id, of the
// key's new generator or of the old one, above the ids before, never an error.
func TestSource_KeyedCallWhoseKeyClosesUnderItTakesTheKeyAgain(t *testing.T) {
	const config = `
cosid:
  namespace: app
  stores: { mem: { type: memory } }
  generators:
    tenant: { strategy: segment, store: mem, step: 10, lookahead: 0s, keyed: true, max-live-keys: 1 }
    coded:
      strategy: segment
      store: mem
      step: 10
      lookahead: 0s
      keyed: true
      max-live-keys: 1
      codec: [ { prefix: { value: "T-" } }, { to-string: {} } ]
`
	text := func(prefix string) func(context.Context, cosid.Source) (int64, error) {
		return func(ctx context.Context, src cosid.Source) (int64, error) {
			text, err := src.Next(ctx)
			if err != nil {
				return 0, err
			}
			return strconv.ParseInt(strings.TrimPrefix(text, prefix), 10, 64)
		}
	}
	for _, tc := range []struct {
		name, gen string
		next      func(context.Context, cosid.Source) (int64, error)
	}{
		{"NextInt", "tenant", func(ctx context.Context, src cosid.Source) (int64, error) { return src.NextInt(ctx) }},
		{"Next", "tenant", text("")},
		{"Next with a codec", "coded", text("T-")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gs := &gatedStore{gated: "app/" + tc.gen + "/a", gate: make(chan struct{})}
				cfg, err := cosid.ParseConfig([]byte(config))
				if err != nil {
					t.Fatal(err)
				}
				rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
					cosid.WithStoreWrapper(func(_, _ string, st store.RangeStore) store.RangeStore {
						gs.RangeStore = st
						return gs
					}))
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close()
				a := source(t, rt, tc.gen, "a")
				for want := int64(1); want <= 10; want++ { // the key's first range, [1, 11)
					if v, err := tc.next(t.Context(), a); v != want || err != nil {
						t.Fatalf("id %d of a: %d, %v", want, v, err)
					}
				}
				var v int64
				done := make(chan struct{})
				go func() {
					defer close(done)
					v, err = tc.next(t.Context(), a)
				}()
				synctest.Wait() // the call waits for a's second range, held back
				if _, err := source(t, rt, tc.gen, "b").Next(t.Context()); err != nil {
					t.Fatal(err)
				}
				synctest.Wait() // a is evicted (max-live-keys: 1), and closed when no call holds it
				close(gs.gate)
				<-done
				if err != nil || v <= 10 {
					t.Fatalf("the call whose key was evicted under it: %d, %v; want an id above 10", v, err)
				}
				if ks := rt.Stats(tc.gen).Keys; ks.Evicted == 0 {
					t.Errorf("KeyStats = %+v; want a evicted", ks)
				}
			})
		})
	}
}
