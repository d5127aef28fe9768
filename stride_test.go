package cosid_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestStride_ConfigErrorsNameThePath: bad strides and residues are configuration
// errors at their YAML path, saying what is allowed.
func TestStride_ConfigErrorsNameThePath(t *testing.T) {
	gen := func(body string) string { return "cosid:\n" + memStore + "  generators:\n    order: " + body + "\n" }
	tests := []struct{ name, yaml, want string }{
		{"StrideZero", gen("{strategy: segment, store: mem, stride: 0}"), "cosid.generators.order.stride: 0, want ≥ 1"},
		{"StrideNegative", gen("{strategy: segment, store: mem, stride: -2}"), "cosid.generators.order.stride: -2, want ≥ 1"},
		{"StrideNotANumber", gen("{strategy: segment, store: mem, stride: two}"), `cosid.generators.order.stride: "two" is not an integer`},
		{"ResidueWithoutStride", gen("{strategy: segment, store: mem, residue: 1}"), "cosid.generators.order.residue: set without stride"},
		{"ResidueAtStride", gen("{strategy: segment, store: mem, stride: 2, residue: 2}"), "cosid.generators.order.residue: 2, want 0 to 1: the residues of stride 2"},
		{"ResidueNegative", gen("{strategy: segment, store: mem, stride: 3, residue: -1}"), "cosid.generators.order.residue: -1, want 0 to 2"},
		{"PeriodicResidue", gen("{strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, stride: 4, residue: 9}"), "cosid.generators.order.residue: 9, want 0 to 3"},
		{"StrideOnSnowflake", gen("{strategy: snowflake, machine-id: 1, stride: 2}"), "cosid.generators.order.stride: not a setting of strategy snowflake"},
		{"ResidueOnSnowflake", gen("{strategy: snowflake, machine-id: 1, residue: 1}"), "cosid.generators.order.residue: not a setting of strategy snowflake"},
		{"StrideOnCosidGenerator", gen("{strategy: cosid-generator, machine-id: 1, stride: 2}"), "cosid.generators.order.stride: not a setting of strategy cosid-generator"},
		{"ResiduePastStride", gen("{strategy: segment, store: mem, stride: 2, residue: 5}"), "cosid.generators.order.residue: 5, want 0 to 1: the residues of stride 2"},
		{"ResidueOfStrideOne", gen("{strategy: segment, store: mem, stride: 1, residue: 1}"), "cosid.generators.order.residue: 1, want 0 to 0: the residues of stride 1"},
		{"KeyedResidue", gen("{strategy: segment, store: mem, keyed: true, stride: 3, residue: 3}"), "cosid.generators.order.residue: 3, want 0 to 2"},
		{"StridePastInt64", gen("{strategy: segment, store: mem, stride: 9223372036854775808}"), `cosid.generators.order.stride: "9223372036854775808" is not an integer`},
		{"StrideAFraction", gen("{strategy: segment, store: mem, stride: 2.5}"), `cosid.generators.order.stride: "2.5" is not an integer`},
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

// regionConfig is a region's configuration: its own memory store, and generators
// of stride 2 and the region's residue.
func regionConfig(residue int) string {
	return fmt.Sprintf(`cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem, step: 20, stride: 2, residue: %[1]d }
    tenant: { strategy: segment, store: mem, step: 20, stride: 2, residue: %[1]d, keyed: true }
    bill: { strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, step: 20, stride: 2, residue: %[1]d }
`, residue)
}

// TestStride_TwoRegionsNeverShareAnID: two regions, each with a store of its own,
// stride 2 and residues 0 and 1, hand out many ids from many goroutines, through
// Next, NextInt, Take and a keyed Source; no id comes twice, and each is in its
// region's class.
func TestStride_TwoRegionsNeverShareAnID(t *testing.T) {
	const callers, each = 4, 500
	var mu sync.Mutex
	seen := map[string]map[string]int{} // by generator: id → residue
	record := func(gen, id string, residue int) {
		mu.Lock()
		defer mu.Unlock()
		if seen[gen] == nil {
			seen[gen] = map[string]int{}
		}
		if r, dup := seen[gen][id]; dup {
			t.Errorf("%s id %s from the regions of residue %d and %d", gen, id, r, residue)
		}
		seen[gen][id] = residue
	}
	var wg sync.WaitGroup
	for residue := range 2 {
		rt := mustOpen(t, regionConfig(residue))
		inClass := func(gen, text string) {
			v, err := strconv.ParseInt(text[strings.LastIndexByte(text, '-')+1:], 10, 64)
			if err != nil || v%2 != int64(residue) {
				t.Errorf("%s id %q of the region of residue %d: not ≡ %d mod 2", gen, text, residue, residue)
			}
			record(gen, text, residue)
		}
		for c := range callers {
			wg.Go(func() {
				order, tenant := source(t, rt, "order", ""), source(t, rt, "tenant", "acme")
				for i := range each {
					var text string
					var err error
					switch (c + i) % 3 {
					case 0:
						text, err = order.Next(t.Context())
					case 1:
						var v int64
						v, err = order.NextInt(t.Context())
						text = strconv.FormatInt(v, 10)
					default:
						var texts []string
						if texts, err = order.Take(t.Context(), 1); err == nil {
							text = texts[0]
						}
					}
					if err != nil {
						t.Error(err)
						return
					}
					inClass("order", text)
					if text, err = tenant.Next(t.Context()); err != nil {
						t.Error(err)
						return
					}
					inClass("tenant", text)
					if text, err = rt.Next(t.Context(), "bill"); err != nil {
						t.Error(err)
						return
					}
					inClass("bill", text)
				}
			})
		}
	}
	wg.Wait()
	for _, gen := range []string{"order", "tenant", "bill"} {
		if n := len(seen[gen]); n != 2*callers*each {
			t.Errorf("%s: %d distinct ids, want %d", gen, n, 2*callers*each)
		}
	}
}

// TestStride_RangesRefusedNamingStride: a strided generator's ids are not
// consecutive: it hands out no ranges, and NextRange says why, naming the stride.
func TestStride_RangesRefusedNamingStride(t *testing.T) {
	rt := mustOpen(t, regionConfig(1))
	for _, info := range rt.Generators() {
		if info.Ranges || info.Stride != 2 || info.Residue != 1 {
			t.Errorf("%s: Ranges %v, Stride %d, Residue %d; want false, 2, 1", info.Name, info.Ranges, info.Stride, info.Residue)
		}
	}
	_, err := source(t, rt, "order", "").NextRange(t.Context(), 10)
	if want := "cosid.generators.order.stride: 2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NextRange of stride 2: %v; want an error naming %s", err, want)
	}
}

// TestStride_S5_ExhaustedNeverWraps: the ids of a stride end where the next would
// pass math.MaxInt64, with ErrExhausted, through Next and Take alike.
func TestStride_S5_ExhaustedNeverWraps(t *testing.T) {
	last := int64(math.MaxInt64-1) / 4 // the last value with an id, of stride 4 residue 1
	rt := mustOpen(t, fmt.Sprintf(`cosid:
  stores: { mem: { type: memory } }
  generators:
    a: { strategy: segment, store: mem, step: 2, stride: 4, residue: 1, initial-offset: %d }
    b: { strategy: segment, store: mem, step: 2, stride: 4, residue: 1, initial-offset: %d }
`, last-2, last-2))
	var got []string
	var err error
	for range 5 {
		var text string
		if text, err = rt.Next(t.Context(), "a"); err != nil {
			break
		}
		got = append(got, text)
	}
	if want := strconv.FormatInt(last*4+1, 10); !errors.Is(err, cosid.ErrExhausted) || len(got) != 3 || got[2] != want {
		t.Errorf("Next of a gave %q then %v; want 3 ids ending at %s, then ErrExhausted", got, err, want)
	}
	got, err = source(t, rt, "b", "").Take(t.Context(), 5)
	if !errors.Is(err, cosid.ErrExhausted) || len(got) != 3 || !strings.Contains(err.Error(), "stride 4") {
		t.Errorf("Take(5) of b = %q, %v; want the 3 ids that fit, then ErrExhausted naming the stride", got, err)
	}
}

// TestStride_CodecWidthCountsTheIDs: a codec's width holds the ids, not the store
// values: stride 3, residue 1, width 1 hands out 4 and 7, then is exhausted.
func TestStride_CodecWidthCountsTheIDs(t *testing.T) {
	rt := mustOpen(t, `cosid:
  stores: { mem: { type: memory } }
  generators:
    digit: { strategy: segment, store: mem, step: 4, stride: 3, residue: 1, codec: [ { radix: { radix: 10, width: 1 } } ] }
`)
	var got []string
	for {
		text, err := rt.Next(t.Context(), "digit")
		if err != nil {
			checkExhausted(t, "Next(digit) past 9", err)
			break
		}
		if got = append(got, text); len(got) > 3 {
			t.Fatalf("Next(digit) gave %q, past the codec's width", got)
		}
	}
	if strings.Join(got, ",") != "4,7" {
		t.Errorf("Next(digit) gave %q; want 4 and 7", got)
	}
}
