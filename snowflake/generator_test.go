package snowflake_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

func TestNext_IDsIncreaseAndCarryMachineAndTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := testLayout()
		g := newFixed(t, 5, l)
		start := time.Now().Add(l.Unit) // NewFixed leaves the Unit it started in unstamped
		ids := collect(t, g, 10)
		checkIncreasing(t, ids)
		for i, id := range ids {
			s := l.Parse(id)
			if s.Machine != 5 || s.Sequence != i || !s.Time.Equal(start) {
				t.Errorf("id %d = %+v, want machine 5, sequence %d, time %v", i, s, i, start)
			}
		}
		if g.Machine() != 5 || g.Layout() != l {
			t.Errorf("Machine() = %d, Layout() = %+v", g.Machine(), g.Layout())
		}
	})
}

// TestNext_StampIsTheCurrentUnit checks, on the default clock that the generator's
// goroutine publishes, that every id is stamped with the Unit of the moment Next
// returned, whether the generator was busy, idle for a while or parked.
func TestNext_StampIsTheCurrentUnit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newFixed(t, 1, testLayout())
		var ids []int64
		for i, d := range []time.Duration{0, time.Microsecond, 999 * time.Microsecond, time.Millisecond, 7 * time.Millisecond,
			20 * time.Millisecond, time.Hour, 500 * time.Microsecond, 500 * time.Microsecond, 3 * time.Millisecond} {
			settle(d)
			for range 5000 { // more than a Unit's 4,096: the sequence runs out and Next waits
				id := mustNext(t, g)
				now := time.Now().UnixMilli()
				if s := stampMs(id); s != now {
					t.Fatalf("step %d: id stamped %d ms, %d ms before Next returned", i, s, now-s)
				}
				ids = append(ids, id)
			}
		}
		checkIncreasing(t, ids)
	})
}

func TestNext_SequenceUsedUpWaitsForTheNextUnit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := testLayout()
		l.MachineBits, l.SequenceBits = 19, 3 // 8 ids a millisecond
		g := newFixed(t, 1, l)
		start := time.Now().Add(time.Millisecond) // NewFixed leaves the Unit it started in unstamped
		for i := range 20 {
			s := l.Parse(mustNext(t, g))
			if want := start.Add(time.Duration(i/8) * time.Millisecond); !s.Time.Equal(want) || s.Sequence != i%8 {
				t.Errorf("id %d = %+v, want sequence %d at %v", i, s, i%8, want)
			}
		}
		if waited := time.Since(start); waited != 2*time.Millisecond {
			t.Errorf("20 ids of 8 a millisecond took %v, want 2ms", waited)
		}
	})
}

func TestNext_NoSequenceBitsMakesOneIDAUnit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := snowflake.Layout{Epoch: testLayout().Epoch, Unit: time.Second, TimestampBits: 40, MachineBits: 4}
		g := newFixed(t, 3, l)
		start := time.Now().Add(time.Second) // NewFixed leaves the Unit it started in unstamped
		ids := collect(t, g, 3)
		checkIncreasing(t, ids)
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("3 ids of 1 a second took %v, want 2s", waited)
		}
	})
}

func TestNext_HotPathAllocatesNothing(t *testing.T) {
	g := newFixed(t, 1, wide())
	mustNext(t, g)
	if allocs := testing.AllocsPerRun(10_000, func() { g.Next() }); allocs != 0 {
		t.Errorf("Next allocates %v times a call, want 0", allocs)
	}
}

func TestNext_ConcurrentCallersGetUniqueIncreasingIDs(t *testing.T) {
	for _, clock := range []string{"default", "injected"} {
		t.Run(clock, func(t *testing.T) {
			var opts []snowflake.Option
			if clock == "injected" {
				opts = append(opts, snowflake.WithClock(time.Now))
			}
			g := newFixed(t, 9, testLayout(), opts...)
			ids := concurrently(t, []*snowflake.Generator{g}, 8, 10_000)
			for _, own := range ids {
				checkIncreasing(t, own)
			}
			checkUnique(t, ids...)
		})
	}
}

func TestNext_LayoutTimeRunsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := snowflake.Layout{Epoch: time.Now().Add(-1000 * time.Millisecond), Unit: time.Millisecond, TimestampBits: 10, MachineBits: 2, SequenceBits: 3}
		g := newFixed(t, 1, l)
		mustNext(t, g)                // Unit 1,001: NewFixed leaves the Unit it started in unstamped
		settle(22 * time.Millisecond) // the last Unit, 1,023
		mustNext(t, g)
		settle(time.Millisecond)
		if _, err := g.Next(); !errors.Is(err, store.ErrExhausted) || !strings.Contains(err.Error(), "last time") {
			t.Errorf("Next past the layout's last time: %v, want an error wrapping store.ErrExhausted", err)
		}
		if _, err := snowflake.NewFixed(1, l); !errors.Is(err, store.ErrExhausted) {
			t.Errorf("NewFixed past the layout's last time: %v, want an error wrapping store.ErrExhausted", err)
		}
	})
}

func TestNewFixed_RefusesBadArguments(t *testing.T) {
	l := testLayout()
	future := testLayout()
	future.Epoch = time.Now().Add(time.Hour).Truncate(time.Millisecond)
	badLayout := l
	badLayout.SequenceBits = 40
	tests := []struct {
		name    string
		machine int
		layout  snowflake.Layout
		opts    []snowflake.Option
		want    error
		mention string
	}{
		{"MachineNegative", -1, l, nil, store.ErrInvalidArgument, "machine -1, want 0–1023"},
		{"MachineTooBig", 1024, l, nil, store.ErrInvalidArgument, "machine 1024"},
		{"InvalidLayout", 1, badLayout, nil, store.ErrInvalidArgument, "bits"},
		{"ClockBeforeEpoch", 1, future, nil, snowflake.ErrClockBackwards, "before the layout's epoch"},
		{"SpinOverBroken", 1, l, []snowflake.Option{snowflake.WithClockBackwards(time.Second, time.Millisecond)}, store.ErrInvalidArgument, "spin"},
		{"NegativeSpin", 1, l, []snowflake.Option{snowflake.WithClockBackwards(-1, time.Second)}, store.ErrInvalidArgument, "spin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := snowflake.NewFixed(tc.machine, tc.layout, tc.opts...)
			if err == nil {
				g.Close()
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("NewFixed = %v, want an error wrapping %v saying %q", err, tc.want, tc.mention)
			}
		})
	}
}

func TestClose_StopsTheGeneratorAndItsGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newFixed(t, 1, testLayout())
		mustNext(t, g)
		elapse(time.Millisecond) // the clock goroutine runs
		if err := g.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		checkStopped(t, g, snowflake.ErrClosed)
		// synctest.Test fails if the generator's goroutine is left behind.
	})
}

func TestClose_EndsAWaitForTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := skewed(0)
		g := newFixed(t, 1, testLayout(), snowflake.WithClock(clock.now))
		mustNext(t, g)
		clock.jump(-time.Second)
		done := make(chan error)
		go func() {
			_, err := g.Next()
			done <- err
		}()
		synctest.Wait() // Next sleeps for the clock to catch up
		g.Close()
		if err := <-done; !errors.Is(err, snowflake.ErrClosed) {
			t.Errorf("Next waiting for the clock when the generator closed: %v, want ErrClosed", err)
		}
	})
}
