package storekit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// BoundCall returns ctx bounded by timeout, the store's bound on every call (the
// value its store.Timeouter reports, which generators check against their own
// waits). When ctx's own deadline comes no later, it returns ctx itself and a cancel
// that does nothing: no timer is made for a call that its caller bounds already.
func BoundCall(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= timeout {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
}

// CallErr returns err, made to wrap ctx.Err() too when ctx ended and err does not
// wrap it already: a client that reports a canceled call in its own words (gRPC, a
// SQL driver) still fails with an error that errors.Is finds
// context.DeadlineExceeded or context.Canceled in.
func CallErr(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%w: %w", ctxErr, err)
	}
	return err
}

// BeginCall is a store's start of a call: ctx bounded by the store's timeout
// (BoundCall), or an error, such as the store's being closed, with a cancel that
// does nothing.
type BeginCall func(ctx context.Context) (context.Context, context.CancelFunc, error)

// DoCall runs f within the bounds that begin gives ctx, and returns f's answer, or
// the error of begin or of f, which CallErr makes wrap the end of the bounded ctx: a
// call that ran out of the store's timeout says so, whatever its client said.
func DoCall[T any](ctx context.Context, begin BeginCall, f func(context.Context) (T, error)) (T, error) {
	var zero T
	ctx, cancel, err := begin(ctx)
	if err != nil {
		return zero, err
	}
	defer cancel()
	v, err := f(ctx)
	if err != nil {
		return zero, CallErr(ctx, err)
	}
	return v, nil
}
