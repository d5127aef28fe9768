package storekit_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/store/storekit"
)

// TestBoundCall_TheSoonerDeadline checks that a call ends at the sooner of its caller's
// deadline and the timeout, and that a caller's sooner deadline is kept as it is.
func TestBoundCall_TheSoonerDeadline(t *testing.T) {
	tests := []struct {
		name     string
		callerIn time.Duration // 0: no deadline
		timeout  time.Duration
		wantIn   time.Duration
		wantSame bool // ctx comes back as given
	}{
		{"NoDeadline", 0, 2 * time.Second, 2 * time.Second, false},
		{"CallerLater", 5 * time.Second, 2 * time.Second, 2 * time.Second, false},
		{"CallerSooner", time.Second, 2 * time.Second, time.Second, true},
		{"CallerAtTimeout", 2 * time.Second, 2 * time.Second, 2 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				if tt.callerIn > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.callerIn)
					defer cancel()
				}
				start := time.Now()
				got, cancel := storekit.BoundCall(ctx, tt.timeout)
				defer cancel()
				if (got == ctx) != tt.wantSame {
					t.Errorf("Bound returned the caller's ctx: %v, want %v", got == ctx, tt.wantSame)
				}
				<-got.Done()
				if d := time.Since(start); d != tt.wantIn {
					t.Errorf("the call ended after %v, want %v", d, tt.wantIn)
				}
			})
		})
	}
}

// TestCallErr_KeepsTheEndOfTheContext checks that an error of an ended call wraps the
// context's error once, and that the error of a live call stays as it was.
func TestCallErr_KeepsTheEndOfTheContext(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	clientErr := errors.New("rpc error: code = Canceled")
	tests := []struct {
		name     string
		ctx      context.Context
		err      error
		wantText string
	}{
		{"LiveCallAsItWas", context.Background(), clientErr, "rpc error: code = Canceled"},
		{"EndedCallWrapsCanceled", ended, clientErr, "context canceled: rpc error: code = Canceled"},
		{"AlreadyWrappedOnce", ended, context.Canceled, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := storekit.CallErr(tt.ctx, tt.err)
			if !errors.Is(err, tt.err) || err.Error() != tt.wantText {
				t.Errorf("Err = %q, want %q wrapping %v", err, tt.wantText, tt.err)
			}
			if tt.ctx.Err() != nil && !errors.Is(err, tt.ctx.Err()) {
				t.Errorf("Err = %v, want it to wrap %v", err, tt.ctx.Err())
			}
		})
	}
}

// TestDoCall_BoundsTheCallAndNamesItsEnd checks Do with a store's Begin: a refused
// begin runs nothing, f runs within the timeout, and an error of a call that ran out
// of it wraps context.DeadlineExceeded even when the client's own error did not.
func TestDoCall_BoundsTheCallAndNamesItsEnd(t *testing.T) {
	errClosed := errors.New("store is closed")
	errClient := errors.New("client: the server did not answer")
	tests := []struct {
		name      string
		closed    bool
		f         func(context.Context) (int, error)
		want      int
		wantErrIs []error
		wantRan   bool
	}{
		{"Answered", false, func(context.Context) (int, error) { return 7, nil }, 7, nil, true},
		{"Closed", true, func(context.Context) (int, error) { return 7, nil }, 0, []error{errClosed}, false},
		{"FailedInTime", false, func(context.Context) (int, error) { return 7, errClient }, 0, []error{errClient}, true},
		{"RanOutOfTime", false, func(ctx context.Context) (int, error) { <-ctx.Done(); return 7, errClient }, 0, []error{errClient, context.DeadlineExceeded}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				begin := func(ctx context.Context) (context.Context, context.CancelFunc, error) {
					if tt.closed {
						return ctx, func() {}, errClosed
					}
					ctx, cancel := storekit.BoundCall(ctx, time.Second)
					return ctx, cancel, nil
				}
				ran := false
				got, err := storekit.DoCall(t.Context(), begin, func(ctx context.Context) (int, error) {
					ran = true
					if _, ok := ctx.Deadline(); !ok {
						t.Error("f ran without a deadline")
					}
					return tt.f(ctx)
				})
				if ran != tt.wantRan {
					t.Errorf("f ran: %v, want %v", ran, tt.wantRan)
				}
				if got != tt.want {
					t.Errorf("Do = %d, want %d", got, tt.want)
				}
				if (err != nil) != (tt.wantErrIs != nil) {
					t.Fatalf("Do = %v, want errors %v", err, tt.wantErrIs)
				}
				for _, target := range tt.wantErrIs {
					if !errors.Is(err, target) {
						t.Errorf("Do = %v, want it to wrap %v", err, target)
					}
				}
			})
		})
	}
}
