package cosid

import (
	"context"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid/store"
)

// MaxTake is the most ids one call of Take returns.
const MaxTake = 10_000

// Take returns the texts of the next n ids (1 ≤ n ≤ MaxTake) of the generator name,
// reserving exactly those. A segment's or periodic segment's ids come from one
// reservation of n in its store, outside the generator's batches: nothing is
// skipped, and the next Take goes on where this one stopped. A snowflake's are its
// next n. Take is for one-shot programs such as the CLI; a long-lived process uses
// Next, whose batches make gaps (S4) but spare the store.
func (rt *Runtime) Take(ctx context.Context, name string, n int64) ([]string, error) {
	g, err := rt.unkeyed(name)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > MaxTake {
		return nil, fmt.Errorf("cosid: Take %d ids of %q: want 1–%d", n, name, MaxTake)
	}
	texts, err := g.take(ctx, n)
	if err != nil {
		return nil, prefixed(err)
	}
	return texts, nil
}

func (g *generator) take(ctx context.Context, n int64) ([]string, error) {
	return g.plan.def.take(ctx, g, g.plan.key, n)
}

// reserve reserves n values of key in the generator's store, outside its batches,
// and returns their texts.
func (g *generator) reserve(ctx context.Context, key string, n int64, text func(int64) (string, error)) ([]string, error) {
	p := g.plan
	b, err := g.rt.stores[p.store].get(ctx)
	if err != nil {
		return nil, fmt.Errorf("generator %q: %w", p.name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.batch.ReserveTimeout)
	defer cancel()
	r, err := b.st.Reserve(ctx, key, n, p.batch.InitialOffset)
	if err != nil {
		return nil, g.reserveErr(err)
	}
	texts := make([]string, 0, n)
	for v := r.Start; v < r.End; v++ {
		t, err := text(v)
		if err != nil {
			return nil, fmt.Errorf("generator %q: %w", p.name, err)
		}
		texts = append(texts, t)
	}
	return texts, nil
}

// reserveErr classifies an error of a reservation: the store's refusals for good
// keep their sentinels; the rest is ErrUnavailable.
func (g *generator) reserveErr(err error) error {
	if errors.Is(err, store.ErrSealed) || errors.Is(err, store.ErrExhausted) || errors.Is(err, store.ErrInvalidArgument) {
		return fmt.Errorf("generator %q: %w", g.plan.name, err)
	}
	return fmt.Errorf("generator %q %w: %w", g.plan.name, ErrUnavailable, err)
}
