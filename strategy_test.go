package cosid_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cosid-go/cosid"
)

const kindsConfig = `
cosid:
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem, lookahead: 0s }
    bill: { strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, lookahead: 0s }
    event: { strategy: snowflake, store: mem }
    fixed: { strategy: snowflake, machine-id: 3 }
`

// TestRuntime_EachStrategyAnswersForItself checks what the Runtime tells of each
// strategy without its callers naming one: whether it leases, its int64 ids, its
// Stats and its lease, which Stats and Lease give only once Build has built it.
func TestRuntime_EachStrategyAnswersForItself(t *testing.T) {
	if got, want := cosid.Strategies(), []cosid.Strategy{cosid.StrategySegment, cosid.StrategyPeriodic, cosid.StrategySnowflake}; !slices.Equal(got, want) {
		t.Errorf("Strategies() = %v, want %v", got, want)
	}
	rt := mustOpen(t, kindsConfig)
	tests := []struct {
		name     string
		strategy cosid.Strategy
		leases   bool
		intIDs   bool // NextInt gives its ids
		stats    bool // it has Stats once built
	}{
		{"bill", cosid.StrategyPeriodic, false, false, true},
		{"event", cosid.StrategySnowflake, true, true, false},
		{"fixed", cosid.StrategySnowflake, false, true, false},
		{"order", cosid.StrategySegment, false, true, true},
	}
	infos := rt.Generators()
	if len(infos) != len(tests) {
		t.Fatalf("Generators() = %+v", infos)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if info := infos[i]; info.Name != tt.name || info.Strategy != tt.strategy || info.Leases != tt.leases {
				t.Errorf("GeneratorInfo = %+v; want strategy %s, leases %v", info, tt.strategy, tt.leases)
			}
			if _, ok := rt.Lease(tt.name); ok || rt.Stats(tt.name) != nil {
				t.Errorf("Lease or Stats answered before the generator was built")
			}
			v, err := rt.NextInt(t.Context(), tt.name)
			if tt.intIDs != (err == nil) || !tt.intIDs && !errors.Is(err, cosid.ErrUnknownGenerator) {
				t.Errorf("NextInt = %d, %v; want ids: %v, else ErrUnknownGenerator", v, err, tt.intIDs)
			}
			if err := rt.Build(t.Context(), tt.name); err != nil {
				t.Fatalf("Build: %v", err)
			}
			if st := rt.Stats(tt.name); tt.stats != (len(st) > 0) {
				t.Errorf("Stats once built = %v; want some: %v", st, tt.stats)
			}
			if l, ok := rt.Lease(tt.name); ok != tt.leases || ok && l.Namespace != "cosid/"+tt.name {
				t.Errorf("Lease once built = %+v, %v; want one: %v", l, ok, tt.leases)
			}
		})
	}
	cfg, err := cosid.ParseConfig([]byte(kindsConfig))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if got := cfg.Generators[tt.name].Leases(); got != tt.leases {
			t.Errorf("GeneratorConfig.Leases of %s = %v, want %v", tt.name, got, tt.leases)
		}
	}
}
