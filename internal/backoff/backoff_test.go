package backoff

import (
	"errors"
	"testing"
	"time"
)

// TestFail_DoublesFromMinUpToMax checks the wait after each failure in a row.
func TestFail_DoublesFromMinUpToMax(t *testing.T) {
	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, Max, Max}
	var b Backoff
	now := time.Date(2026, 10, 27, 9, 30, 0, 0, time.UTC)
	for i, w := range want {
		if got := b.Fail(errors.New("down"), now); got != w {
			t.Errorf("failure %d: wait %v, want %v", i+1, got, w)
		}
		now = now.Add(time.Hour)
	}
}

// TestErr_SaysWhenAndWrapsTheLatestFailure checks the error of a caller that
// arrives during the wait, and that none comes once it has passed.
func TestErr_SaysWhenAndWrapsTheLatestFailure(t *testing.T) {
	first := time.Date(2026, 10, 27, 9, 30, 15, 0, time.UTC)
	down := errors.New("connection refused")
	tests := []struct {
		name     string
		failures int
		after    time.Duration // since the latest failure
		want     string        // "" for no error
	}{
		{"OneFailure", 1, 30 * time.Millisecond, "retrying in 70ms (1 failure since 09:30:15): connection refused"},
		{"ThreeFailures", 3, 100 * time.Millisecond, "retrying in 300ms (3 failures since 09:30:15): connection refused"},
		{"WaitOver", 2, 200 * time.Millisecond, ""},
		{"NoFailure", 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Backoff
			now := first
			for range tt.failures {
				b.Fail(down, now)
			}
			err := b.Err(now.Add(tt.after))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Err = %v, want none", err)
			case tt.want == "":
			case err == nil || err.Error() != tt.want:
				t.Fatalf("Err = %v, want %q", err, tt.want)
			case !errors.Is(err, down):
				t.Errorf("Err = %v does not wrap the latest failure", err)
			}
		})
	}
}

// TestReset_EndsTheRow checks that a success ends the wait and that the next
// failure starts the row again from Min.
func TestReset_EndsTheRow(t *testing.T) {
	var b Backoff
	now := time.Date(2026, 10, 27, 9, 30, 0, 0, time.UTC)
	b.Fail(errors.New("a"), now)
	b.Fail(errors.New("b"), now)
	if n := b.Reset(); n != 2 {
		t.Errorf("Reset = %d, want the 2 failures it ends", n)
	}
	if err := b.Err(now); err != nil {
		t.Errorf("Err after Reset = %v, want none", err)
	}
	if w := b.Fail(errors.New("c"), now); w != Min {
		t.Errorf("wait after Reset and a failure = %v, want %v", w, Min)
	}
}
