package storekit

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// KeyTurns gives each key of a store a turn that one goroutine of the process holds
// at a time, with what the store knows of the key kept beside it. A store whose
// writes are compare-and-swaps takes the key's turn for each reservation or seal, so
// that the reservations of one key in a process queue instead of making each
// other's compare-and-swaps miss; only other processes' writes then make one miss.
//
// It holds a KeyTurn per key, made on first use and kept for the life of the
// KeyTurns: a few dozen bytes per key it ever served. The zero value is ready to
// use; a KeyTurns must not be copied after first use.
type KeyTurns[S any] struct {
	mu    sync.Mutex
	turns map[string]*KeyTurn[S]
}

// KeyTurn is the turn of one key. Only its holder, between Take and Give, reads or
// writes State.
type KeyTurn[S any] struct {
	token chan struct{} // holds a token while the turn is taken
	State S
}

// Take waits for the turn of key, or for ctx to end; the caller gives the turn back
// with Give once it has what it came for.
func (ts *KeyTurns[S]) Take(ctx context.Context, key string) (*KeyTurn[S], error) {
	t := ts.turn(key)
	select {
	case t.token <- struct{}{}:
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (ts *KeyTurns[S]) turn(key string) *KeyTurn[S] {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.turns[key]
	if !ok {
		if ts.turns == nil {
			ts.turns = map[string]*KeyTurn[S]{}
		}
		t = &KeyTurn[S]{token: make(chan struct{}, 1)}
		ts.turns[key] = t
	}
	return t
}

// Give ends the turn taken by Take, letting the next waiter for the key in.
func (t *KeyTurn[S]) Give() { <-t.token }

// Backoff waits about base·2^(n-1), up to limit, for the n-th wait of one writer
// whose compare-and-swap missed, or until ctx ends. The wait is drawn from its upper half, so that processes whose
// compare-and-swaps missed together do not try again together.
func Backoff(ctx context.Context, n int, base, limit time.Duration) error {
	d := min(base<<min(n-1, 16), limit)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
