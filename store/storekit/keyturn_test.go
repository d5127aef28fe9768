package storekit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/store/storekit"
)

// TestKeyTurns_OneHolderPerKey: State is written without a lock by every goroutine that
// holds the turn; a second holder at once is a data race under -race and a lost
// increment without it.
func TestKeyTurns_OneHolderPerKey(t *testing.T) {
	var ts storekit.KeyTurns[int]
	const goroutines, rounds = 8, 200
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				turn, err := ts.Take(t.Context(), "k")
				if err != nil {
					t.Error(err)
					return
				}
				v := turn.State
				turn.State = v + 1
				turn.Give()
			}
		})
	}
	wg.Wait()
	turn, err := ts.Take(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Give()
	if turn.State != goroutines*rounds {
		t.Fatalf("State = %d after %d increments in turn", turn.State, goroutines*rounds)
	}
}

func TestKeyTurnsTake_WaitsOnlyForAHeldKey(t *testing.T) {
	tests := []struct {
		name    string
		held    string // a key whose turn is held while key is taken
		key     string
		wantErr error
	}{
		{name: "free key", key: "a"},
		{name: "another key held", held: "b", key: "a"},
		{name: "same key held", held: "a", key: "a", wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts storekit.KeyTurns[struct{}]
			if tt.held != "" {
				h, err := ts.Take(t.Context(), tt.held)
				if err != nil {
					t.Fatal(err)
				}
				defer h.Give()
			}
			ctx, cancel := context.WithCancel(t.Context())
			if tt.wantErr != nil {
				cancel() // a waiter for a held turn returns at once when ctx ends
			}
			defer cancel()
			turn, err := ts.Take(ctx, tt.key)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Take(%q) = %v, want %v", tt.key, err, tt.wantErr)
			}
			if err == nil {
				turn.Give()
			}
		})
	}
}

// TestKeyTurns_StateKept: what the holder of a key's turn writes is there for the next.
func TestKeyTurns_StateKept(t *testing.T) {
	var ts storekit.KeyTurns[string]
	for _, key := range []string{"a", "b"} {
		turn, err := ts.Take(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		turn.State = "seen " + key
		turn.Give()
	}
	for _, key := range []string{"a", "b"} {
		turn, err := ts.Take(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		if want := "seen " + key; turn.State != want {
			t.Errorf("State of %q = %q, want %q", key, turn.State, want)
		}
		turn.Give()
	}
}

func TestBackoff_UpperHalfOfTheDoubledWait(t *testing.T) {
	const base, limit = time.Millisecond, 20 * time.Millisecond
	tests := []struct {
		n        int
		min, max time.Duration
	}{
		{n: 1, min: base / 2, max: base},
		{n: 3, min: 2 * base, max: 4 * base},
		{n: 6, min: limit / 2, max: limit},
		{n: 1000, min: limit / 2, max: limit},
	}
	for _, tt := range tests {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			if err := storekit.Backoff(t.Context(), tt.n, base, limit); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d < tt.min || d > tt.max {
				t.Errorf("Backoff(n=%d) waited %v, want within [%v, %v]", tt.n, d, tt.min, tt.max)
			}
		})
	}
}

func TestBackoff_EndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := storekit.Backoff(ctx, 1, time.Hour, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Backoff with a canceled ctx = %v, want context.Canceled", err)
	}
}
