package segment

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/store/memstore"
)

// TestPeriodic_Close checks that a closed Periodic refuses calls, and that Close
// stopped its timers (prewarm and seals): none is left to fire.
func TestPeriodic_Close(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := NewPeriodic(memstore.New(), "app/bill", YearMonthDay, time.UTC, DefaultBatchPolicy(),
			PeriodicPolicy{Prewarm: time.Minute, SealAfter: time.Hour}, WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Next(); err != nil {
			t.Fatalf("Next: %v", err)
		}
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, err := p.Next(); !errors.Is(err, ErrClosed) {
			t.Errorf("Next after Close: %v, want ErrClosed", err)
		}
		if err := p.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if p.prewarm == nil || p.prewarm.Stop() {
			t.Error("the prewarm timer was not stopped by Close")
		}
		if p.sealing == nil || len(p.sealing.timers) == 0 {
			t.Fatal("no seal timer was set")
		}
		for key, timer := range p.sealing.timers {
			if timer.Stop() {
				t.Errorf("the seal timer of %s was not stopped by Close", key)
			}
		}
	})
}
