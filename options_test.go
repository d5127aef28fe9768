package cosid_test

import (
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// seen records what the generators' observers saw, by the names the options were
// asked for.
type seen struct {
	mu     sync.Mutex
	asked  []string
	ranges map[string]int
	leases map[string]int
}

func (s *seen) ask(kind, generator, st string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, kind+" "+generator+" on "+st)
}

type rangeSeen struct {
	s    *seen
	name string
}

func (o rangeSeen) Reserved(string, store.Range, time.Duration) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.ranges[o.name]++
}
func (rangeSeen) RefillFailed(string, error, time.Duration) {}
func (rangeSeen) Waited(string, time.Duration)              {}

type leaseSeen struct {
	s    *seen
	name string
}

func (o leaseSeen) LeaseAcquired(store.Lease) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.leases[o.name]++
}
func (leaseSeen) LeaseRenewed(store.Lease)     {}
func (leaseSeen) LeaseLost(store.Lease, error) {}
func (leaseSeen) LeaseReleased(store.Lease)    {}

// TestRuntime_GeneratorOptionsReachEveryGenerator checks that WithSegmentOptions
// and WithSnowflakeOptions reach each generator of their kind, named with its store.
func TestRuntime_GeneratorOptionsReachEveryGenerator(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n" + memStore + `  generators:
    order: {strategy: segment, store: mem}
    bill: {strategy: periodic-segment, store: mem, period: YEAR, zone: UTC}
    event: {strategy: snowflake, store: mem}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &seen{ranges: map[string]int{}, leases: map[string]int{}}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
		cosid.WithSegmentOptions(func(g, st string) []segment.Option {
			s.ask("segment", g, st)
			return []segment.Option{segment.WithObserver(rangeSeen{s, g})}
		}),
		cosid.WithSnowflakeOptions(func(g, st string) []snowflake.Option {
			s.ask("snowflake", g, st)
			return []snowflake.Option{snowflake.WithObserver(leaseSeen{s, g})}
		}))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"order", "bill", "event"} {
		if _, err := rt.Next(t.Context(), name); err != nil {
			t.Fatalf("Next(%q): %v", name, err)
		}
	}
	// A generator tells its observer of a range after its first caller may have
	// taken an id of it; Close waits for that.
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]bool{"segment order on mem": true, "segment bill on mem": true, "snowflake event on mem": true}
	if len(s.asked) != len(want) {
		t.Errorf("options asked for %q, want each of %v once", s.asked, want)
	}
	for _, a := range s.asked {
		if !want[a] {
			t.Errorf("options asked for %q, want only %v", a, want)
		}
	}
	if s.ranges["order"] == 0 || s.ranges["bill"] == 0 {
		t.Errorf("ranges seen %v, want order's and bill's", s.ranges)
	}
	if s.leases["event"] != 1 {
		t.Errorf("leases seen %v, want event's one", s.leases)
	}
}
