package cosid_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// givenBack is one GiveBack a giveBackWatch saw.
type givenBack struct {
	key     string
	tail    store.Range
	lowered bool
}

// giveBackWatch is a store that reports every GiveBack, so that a test can wait for
// the give-back of a key that closes in the background.
type giveBackWatch struct {
	*memstore.Store
	given chan givenBack
}

func newGiveBackWatch() *giveBackWatch {
	return &giveBackWatch{Store: memstore.New(), given: make(chan givenBack, 64)}
}

func (w *giveBackWatch) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	ok, err := w.Store.GiveBack(ctx, key, tail)
	w.given <- givenBack{key, tail, ok}
	return ok, err
}

// Close leaves the memstore open, for the next runtime of a test.
func (w *giveBackWatch) Close() error { return nil }

// option has a runtime use w for every store.
func (w *giveBackWatch) option() cosid.Option {
	return cosid.WithStoreWrapper(func(string, string, store.RangeStore) store.RangeStore { return w })
}

// wait returns the next give-back of key, skipping those of other keys. The
// timeout only keeps a test whose key never gives back from hanging.
func (w *giveBackWatch) wait(t *testing.T, key string) givenBack {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case g := <-w.given:
			if g.key == key {
				return g
			}
		case <-timeout:
			t.Fatalf("no give-back of %s", key)
		}
	}
}

// TestRuntimeClose_S7_GivesBack closes a runtime after three ids of a generator, and
// opens another on the same store: it goes on at the fourth, unless give-back is
// off; a periodic one's current period too.
func TestRuntimeClose_S7_GivesBack(t *testing.T) {
	tests := []struct {
		name, strategy, extra string
		want                  string
	}{
		{"Segment", "segment", "", "4"},
		{"SegmentGiveBackFalse", "segment", "give-back: false", "11"},
		{"Periodic", "periodic-segment", "period: YEAR, zone: UTC, codec: [ { period: { delimiter: '-' } } ]", "-4"},
		{"PeriodicGiveBackFalse", "periodic-segment", "period: YEAR, zone: UTC, codec: [ { period: { delimiter: '-' } } ], give-back: false", "-11"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := fmt.Sprintf(`
cosid:
  namespace: app
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: %s, store: mem, step: 10, lookahead: 0s, %s }
`, tc.strategy, tc.extra)
			cfg, err := cosid.ParseConfig([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			w := newGiveBackWatch()
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), w.option())
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, err := rt.Next(t.Context(), "order"); err != nil {
					t.Fatal(err)
				}
			}
			if err := rt.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			rt2, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), w.option())
			if err != nil {
				t.Fatal(err)
			}
			defer rt2.Close()
			id, err := rt2.Next(t.Context(), "order")
			if err != nil {
				t.Fatal(err)
			}
			if len(id) < len(tc.want) || id[len(id)-len(tc.want):] != tc.want {
				t.Errorf("after a restart the next id is %q, want one ending in %q", id, tc.want)
			}
		})
	}
}
