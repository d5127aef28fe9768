package cosid

import (
	"context"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// MaxTake is the most ids one call of Source.Take returns.
const MaxTake = 10_000

// reserve reserves n values of key in the generator's store with the batch policy
// b, outside its batches, and returns their texts: Take of the strategies that
// reserve. When text refuses a value, it returns the texts before it with the
// error.
func (g *generator) reserve(ctx context.Context, key string, n int64, b segment.BatchPolicy, text func(int64) (string, error)) ([]string, error) {
	p := g.plan
	box, err := g.rt.stores[p.store].get(ctx)
	if err != nil {
		return nil, fmt.Errorf("generator %q: %w", p.name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, b.ReserveTimeout)
	defer cancel()
	r, err := box.st.Reserve(ctx, key, n, b.InitialOffset)
	if err != nil {
		return nil, g.reserveErr(err)
	}
	texts := make([]string, 0, n)
	for v := r.Start; v < r.End; v++ {
		t, err := text(v)
		if err != nil {
			// The texts so far are reserved and good: the caller prints them.
			return texts, fmt.Errorf("generator %q: %w", p.name, exhausted(p.name, err))
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
