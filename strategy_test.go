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
    text: { strategy: cosid-generator, store: mem }
    textfixed: { strategy: cosid-generator, machine-id: 3 }
`

// capabilities is what a strategy can do, as its callers ask it: one row a
// strategy, for TestRuntime_EachStrategyAnswersForItself.
type capabilities struct {
	generator string // of kindsConfig, of the strategy
	keyed     string // the settings of a keyed generator of it; "" when it cannot be keyed
	leases    bool
	intIDs    bool // NextInt and Codec give its ids
	ranges    bool // NextRange gives runs of them
	stats     bool // it has Stats once built
}

var strategyCapabilities = map[cosid.Strategy][]capabilities{
	cosid.StrategySegment:   {{generator: "order", keyed: "{strategy: segment, store: mem}", intIDs: true, ranges: true, stats: true}},
	cosid.StrategyPeriodic:  {{generator: "bill", keyed: "{strategy: periodic-segment, store: mem, period: YEAR, zone: UTC}", stats: true}},
	cosid.StrategySnowflake: {{generator: "event", leases: true, intIDs: true}, {generator: "fixed", intIDs: true}},
	// Text only: 80 bits.
	cosid.StrategyCosIDGenerator: {{generator: "text", leases: true}, {generator: "textfixed"}},
}

// TestRuntime_EachStrategyAnswersForItself checks what each strategy answers for
// itself, without its callers naming it: whether it leases, has int64 ids, hands
// out ranges and can be keyed (GeneratorInfo, and the calls that serve each), its
// Stats and its lease, which Stats and Lease give only once Build has built it. A
// strategy without a row here fails: a new one states what it can do.
func TestRuntime_EachStrategyAnswersForItself(t *testing.T) {
	rt := mustOpen(t, kindsConfig)
	infos := map[string]cosid.GeneratorInfo{}
	for _, info := range rt.Generators() {
		infos[info.Name] = info
	}
	for _, s := range cosid.Strategies() {
		rows, ok := strategyCapabilities[s]
		if !ok {
			t.Errorf("strategy %s has no row of capabilities in this test: say what it can do", s)
		}
		for _, tt := range rows {
			t.Run(tt.generator, func(t *testing.T) {
				info := infos[tt.generator]
				if info.Strategy != s || info.Leases != tt.leases || info.IntIDs != tt.intIDs || info.Ranges != tt.ranges || info.Keyed {
					t.Errorf("GeneratorInfo = %+v; want strategy %s, leases %v, int ids %v, ranges %v", info, s, tt.leases, tt.intIDs, tt.ranges)
				}
				if _, ok := rt.Lease(tt.generator); ok || rt.Stats(tt.generator).Segments != nil {
					t.Errorf("Lease or Stats answered before the generator was built")
				}
				src := source(t, rt, tt.generator, "")
				v, err := src.NextInt(t.Context())
				if tt.intIDs != (err == nil) || !tt.intIDs && !errors.Is(err, cosid.ErrUnknownGenerator) {
					t.Errorf("NextInt = %d, %v; want ids: %v, else ErrUnknownGenerator", v, err, tt.intIDs)
				}
				if _, err := rt.Codec(tt.generator); tt.intIDs != (err == nil) {
					t.Errorf("Codec: %v; want one: %v", err, tt.intIDs)
				}
				r, err := src.NextRange(t.Context(), 3)
				if tt.ranges != (err == nil && r.Len() == 3) || !tt.ranges && !errors.Is(err, cosid.ErrUnknownGenerator) {
					t.Errorf("NextRange(3) = %v, %v; want a range: %v, else ErrUnknownGenerator", r, err, tt.ranges)
				}
				if err := rt.Build(t.Context(), tt.generator); err != nil {
					t.Fatalf("Build: %v", err)
				}
				if st := rt.Stats(tt.generator); tt.stats != (len(st.Segments) > 0) {
					t.Errorf("Stats once built = %+v; want some: %v", st, tt.stats)
				}
				if l, ok := rt.Lease(tt.generator); ok != tt.leases || ok && l.Namespace != "cosid/"+tt.generator {
					t.Errorf("Lease once built = %+v, %v; want one: %v", l, ok, tt.leases)
				}
			})
		}
		if len(rows) > 0 {
			keyedCanBe(t, s, rows[0].keyed)
		}
	}
	if got, want := cosid.Strategies(), []cosid.Strategy{cosid.StrategySegment, cosid.StrategyPeriodic, cosid.StrategySnowflake, cosid.StrategyCosIDGenerator}; !slices.Equal(got, want) {
		t.Errorf("Strategies() = %v, want %v, in the docs' order", got, want)
	}
	cfg, err := cosid.ParseConfig([]byte(kindsConfig))
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range strategyCapabilities {
		for _, tt := range rows {
			if got := cfg.Generators[tt.generator].Leases(); got != tt.leases {
				t.Errorf("GeneratorConfig.Leases of %s = %v, want %v", tt.generator, got, tt.leases)
			}
		}
	}
}

// keyedCanBe checks that a keyed generator of strategy s, of the settings gen, opens
// and hands out ids per key; or, with gen empty, that keyed: true is refused.
func keyedCanBe(t *testing.T, s cosid.Strategy, gen string) {
	t.Helper()
	if gen == "" {
		gen = "{strategy: " + string(s) + ", machine-id: 1}"
		_, err := openYAML(t, "cosid:\n"+memStore+"  generators:\n    k: "+gen[:len(gen)-1]+", keyed: true}\n")
		if !errors.Is(err, cosid.ErrConfig) {
			t.Errorf("a keyed %s generator: %v; want it refused", s, err)
		}
		return
	}
	rt, err := openYAML(t, "cosid:\n"+memStore+"  generators:\n    k: "+gen[:len(gen)-1]+", keyed: true}\n")
	if err != nil {
		t.Fatalf("a keyed %s generator: %v", s, err)
	}
	a, b := source(t, rt, "k", "a"), source(t, rt, "k", "b")
	ta, err1 := a.Next(t.Context())
	tb, err2 := b.Next(t.Context())
	if err1 != nil || err2 != nil || ta != tb {
		t.Errorf("keyed %s: keys a and b gave %q, %q (%v, %v); want each its own sequence's first", s, ta, tb, err1, err2)
	}
	if infos := rt.Generators(); len(infos) != 1 || !infos[0].Keyed {
		t.Errorf("keyed %s: Generators() = %+v; want it keyed", s, infos)
	}
}
