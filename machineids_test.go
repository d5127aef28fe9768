package cosid_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// sharedStore is a memory store that many runtimes share, as the instances of a
// region share its store: closing a runtime leaves it open.
type sharedStore struct{ *memstore.Store }

func (sharedStore) Close() error { return nil }

// TestMachineIDs_ConfigErrorsNameThePath: bad machine-id ranges are configuration
// errors at their YAML path, saying what is allowed.
func TestMachineIDs_ConfigErrorsNameThePath(t *testing.T) {
	gen := func(body string) string { return "cosid:\n" + memStore + "  generators:\n    ev: " + body + "\n" }
	tests := []struct{ name, yaml, want string }{
		{"OneNumber", gen("{strategy: snowflake, store: mem, machine-ids: [3]}"), "cosid.generators.ev.machine-ids: 1 numbers; want two, [lo, hi]"},
		{"ThreeNumbers", gen("{strategy: snowflake, store: mem, machine-ids: [0, 1, 2]}"), "cosid.generators.ev.machine-ids: 3 numbers; want two"},
		{"NotNumbers", gen("{strategy: snowflake, store: mem, machine-ids: [a, b]}"), "cosid.generators.ev.machine-ids"},
		{"AScalar", gen("{strategy: snowflake, store: mem, machine-ids: 5}"), "cosid.generators.ev.machine-ids"},
		{"HiAtLo", gen("{strategy: snowflake, store: mem, machine-ids: [4, 4]}"), "cosid.generators.ev.machine-ids: [4, 4]: hi must be above lo"},
		{"HiBelowLo", gen("{strategy: snowflake, store: mem, machine-ids: [8, 4]}"), "cosid.generators.ev.machine-ids: [8, 4]: hi must be above lo"},
		{"LoNegative", gen("{strategy: snowflake, store: mem, machine-ids: [-1, 4]}"), "cosid.generators.ev.machine-ids: [-1, 4]: lo -1 is below 0"},
		{"HiPastTheBits", gen("{strategy: snowflake, store: mem, machine-ids: [512, 1025]}"), "cosid.generators.ev.machine-ids: [512, 1025]: hi 1025 is past 1024, the machines of 10 machine bits"},
		{"HiPastNarrowBits", gen("{strategy: snowflake, store: mem, machine-bits: 4, timestamp-bits: 47, machine-ids: [8, 17]}"), "hi 17 is past 16, the machines of 4 machine bits"},
		{"WithSlots", gen("{strategy: snowflake, store: mem, slots: 4, machine-ids: [0, 4]}"), "cosid.generators.ev.slots: set with machine-ids"},
		{"WithFixedMachine", gen("{strategy: snowflake, machine-id: 3, machine-ids: [0, 4]}"), "cosid.generators.ev.machine-id: a fixed machine id takes no store, slots, machine-ids"},
		{"CosidGeneratorPastBits", gen("{strategy: cosid-generator, store: mem, machine-ids: [0, 1048577]}"), "hi 1048577 is past 1048576, the machines of 20 machine bits"},
		{"HiPastJavaScriptLayout", gen("{strategy: snowflake, store: mem, layout: javascript, machine-ids: [128, 257]}"), "cosid.generators.ev.machine-ids: [128, 257]: hi 257 is past 256, the machines of 8 machine bits"},
		{"OverMaxSlots", gen("{strategy: snowflake, store: mem, unit: 1s, timestamp-bits: 30, machine-bits: 23, sequence-bits: 10, machine-ids: [0, 4194305]}"), "cosid.generators.ev.machine-ids: [0, 4194305]: 4194305 machine ids, over the 4194304 slots a namespace may have"},
		{"Fractions", gen("{strategy: snowflake, store: mem, machine-ids: [0, 4.5]}"), `cosid.generators.ev.machine-ids[1]: "4.5" is not an integer`},
		{"OnPeriodic", gen("{strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, machine-ids: [0, 4]}"), "cosid.generators.ev.machine-ids: not a setting of strategy periodic-segment"},
		{"OnSegment", gen("{strategy: segment, store: mem, machine-ids: [0, 4]}"), "cosid.generators.ev.machine-ids: not a setting of strategy segment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openYAML(t, tc.yaml)
			if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant ErrConfig containing %q", err, tc.want)
			}
		})
	}
}

// TestMachineIDs_RegionsLeaseOnlyTheirRange: two regions, each with a store of its
// own and machine-ids [0, 2] and [2, 4], run two instances each: every instance's
// machine is in its region's range, none is shared, and a third instance of a
// region finds no free machine id.
func TestMachineIDs_RegionsLeaseOnlyTheirRange(t *testing.T) {
	machines := map[string]string{} // strategy/machine → region/owner
	for _, region := range []struct {
		name   string
		lo, hi int
	}{{"east", 0, 2}, {"west", 2, 4}} {
		cfg, err := cosid.ParseConfig(fmt.Appendf(nil, `cosid:
  stores: { mem: { type: memory } }
  generators:
    ev: { strategy: snowflake, store: mem, machine-ids: [%d, %d] }
    tr: { strategy: cosid-generator, store: mem, machine-ids: [%[1]d, %[2]d] }
`, region.lo, region.hi))
		if err != nil {
			t.Fatal(err)
		}
		st := sharedStore{memstore.New()} // the region's store, which its instances share
		for i, owner := range []string{"a", "b", "c"} {
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
				cosid.WithStoreWrapper(func(string, string, store.RangeStore) store.RangeStore { return st }),
				cosid.WithSnowflakeOptions(func(string, string) []snowflake.Option { return []snowflake.Option{snowflake.WithOwnerKey(owner)} }))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rt.Close() })
			for _, name := range []string{"ev", "tr"} {
				_, err := rt.Next(t.Context(), name)
				if i == 2 {
					if !errors.Is(err, cosid.ErrUnavailable) {
						t.Errorf("%s %s %s, past the range: %v; want ErrUnavailable (no free slot)", region.name, owner, name, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				text, err := rt.Next(t.Context(), name)
				if err != nil {
					t.Fatal(err)
				}
				d, err := rt.Decode(name, text)
				if err != nil {
					t.Fatal(err)
				}
				m := d.Snowflake.Machine
				if m < region.lo || m >= region.hi {
					t.Errorf("%s %s %s: machine %d, outside [%d, %d)", region.name, owner, name, m, region.lo, region.hi)
				}
				k := fmt.Sprintf("%s/%d", name, m)
				if other, dup := machines[k]; dup {
					t.Errorf("%s machine %d of both %s and %s/%s", name, m, other, region.name, owner)
				}
				machines[k] = region.name + "/" + owner
			}
		}
	}
}

// TestMachineIDs_ResizedRangeRefusedOnItsStore: a region's store keeps the slot
// count of a generator's namespace once set (L4), so the same generator with a
// range of another size on that store is refused, naming the conflict, while a
// range of the same size elsewhere in the bits is leased.
func TestMachineIDs_ResizedRangeRefusedOnItsStore(t *testing.T) {
	st := sharedStore{memstore.New()}
	open := func(ids string) *cosid.Runtime {
		cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: { mem: { type: memory } }\n  generators:\n    ev: { strategy: snowflake, store: mem, machine-ids: " + ids + " }\n"))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
			cosid.WithStoreWrapper(func(string, string, store.RangeStore) store.RangeStore { return st }))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
		return rt
	}
	tests := []struct {
		ids  string
		want error // nil: leased
	}{
		{"[0, 4]", nil},
		{"[0, 8]", store.ErrNamespaceConflict},
		{"[4, 6]", store.ErrNamespaceConflict},
		{"[4, 8]", nil}, // the same 4 slots, machines 4–7
	}
	for _, tc := range tests {
		_, err := open(tc.ids).Next(t.Context(), "ev")
		if tc.want == nil && err != nil || tc.want != nil && (!errors.Is(err, tc.want) || !strings.Contains(err.Error(), "set cosid.generators.ev.machine-ids (or slots) and tolerance back")) {
			t.Errorf("machine-ids %s after [0, 4] on one store: %v; want %v naming cosid.generators.ev.machine-ids", tc.ids, err, tc.want)
		}
	}
}
