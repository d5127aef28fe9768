package snowflake_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
)

// TestNewFixed_RestartWithinAUnitRepeatsNoID checks issue 19's one-shot runs: a
// fixed-machine generator that stamped ids and stopped, and a new one of the same
// machine started within the same Unit (a second run of `cosid next`), never hand
// out one id twice, for a one-second and a one-millisecond Unit. The new one waits
// out the Unit it started in; the injected clocks are a synctest bubble's.
func TestNewFixed_RestartWithinAUnitRepeatsNoID(t *testing.T) {
	for _, tt := range []struct {
		name   string
		layout func() snowflake.Layout
	}{
		{"JavaScriptSecond", func() snowflake.Layout {
			l := snowflake.JavaScriptLayout()
			l.Epoch = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
			return l
		}},
		{"DefaultMillisecond", testLayout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				seen := map[int64]int{}
				for run := range 3 {
					g, err := snowflake.NewFixed(1, tt.layout(), snowflake.WithLogger(nil))
					if err != nil {
						t.Fatalf("run %d: NewFixed: %v", run, err)
					}
					for range 3 {
						id, err := g.Next()
						if err != nil {
							t.Fatalf("run %d: Next: %v", run, err)
						}
						if prev, dup := seen[id]; dup {
							t.Fatalf("run %d handed out %d, which run %d already had", run, id, prev)
						}
						seen[id] = run
					}
					if err := g.Close(); err != nil {
						t.Fatalf("run %d: Close: %v", run, err)
					}
				}
			})
		})
	}
}

// TestNewFixed_FirstIDIsAfterTheStartingUnit checks the rule itself: the first id
// is stamped with a Unit after the one current at NewFixed, and a generator first
// called a Unit or more later does not wait.
func TestNewFixed_FirstIDIsAfterTheStartingUnit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := snowflake.JavaScriptLayout()
		l.Epoch = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
		elapse(300 * time.Millisecond) // within a Unit, not at its start
		start := time.Now()
		g := newFixed(t, 1, l)
		id, err := g.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		stamp := l.Epoch.Add(time.Duration(id>>(l.MachineBits+l.SequenceBits)) * l.Unit)
		if want := start.Truncate(time.Second).Add(time.Second); !stamp.Equal(want) {
			t.Errorf("first id stamped %v, want the next Unit %v", stamp, want)
		}

		late := newFixed(t, 2, l)
		elapse(2 * time.Second)
		before := time.Now()
		if _, err := late.Next(); err != nil {
			t.Fatalf("Next: %v", err)
		}
		if waited := time.Since(before); waited != 0 {
			t.Errorf("a generator first called 2s after NewFixed waited %v, want 0", waited)
		}
	})
}
