package snowflake_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// TestWithMachineBase_LeasedSlotsAreMachinesOfTheRange: two regions, each leasing
// from a store of its own, with machines [0, 4) and [4, 8): every generator's
// machine, and every id's, is in its region's range, and no two share one.
func TestWithMachineBase_LeasedSlotsAreMachinesOfTheRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		machines := map[int]string{}
		for _, region := range []struct {
			name   string
			lo, hi int
		}{{"east", 0, 4}, {"west", 4, 8}} {
			st := memstore.New() // each region's own store
			for _, owner := range []string{"a", "b", "c", "d"} {
				g := newLeased(t, st, owner, snowflake.WithLimit(region.hi-region.lo), snowflake.WithMachineBase(region.lo))
				m := g.Machine()
				if m < region.lo || m >= region.hi {
					t.Errorf("%s %s: machine %d, outside [%d, %d)", region.name, owner, m, region.lo, region.hi)
				}
				if other, dup := machines[m]; dup {
					t.Errorf("machine %d of both %s and %s", m, other, region.name+"/"+owner)
				}
				machines[m] = region.name + "/" + owner
				for _, id := range collect(t, g, 3) {
					if got := testLayout().Parse(id).Machine; got != m {
						t.Errorf("id %d carries machine %d, want %d", id, got, m)
					}
				}
			}
			if _, err := snowflake.New(t.Context(), st, testLayout(), snowflake.WithLogger(nil), snowflake.WithNamespace("test"),
				snowflake.WithOwnerKey("e"), snowflake.WithLimit(region.hi-region.lo), snowflake.WithMachineBase(region.lo)); !errors.Is(err, store.ErrNoFreeSlot) {
				t.Errorf("%s: a fifth generator: %v; want ErrNoFreeSlot, the range being full", region.name, err)
			}
		}
	})
}

// TestWithMachineBase_RefusesBadArguments: a base without a limit, a range past
// the machine bits, a negative base, a base of a fixed machine.
func TestWithMachineBase_RefusesBadArguments(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []snowflake.Option
	}{
		{"NoLimit", []snowflake.Option{snowflake.WithMachineBase(4)}},
		{"PastTheBits", []snowflake.Option{snowflake.WithMachineBase(1000), snowflake.WithLimit(100)}},
		{"Negative", []snowflake.Option{snowflake.WithMachineBase(-1), snowflake.WithLimit(4)}},
	} {
		opts := append([]snowflake.Option{snowflake.WithLogger(nil), snowflake.WithNamespace("test"), snowflake.WithOwnerKey("a")}, c.opts...)
		if _, err := snowflake.New(t.Context(), memstore.New(), testLayout(), opts...); !errors.Is(err, store.ErrInvalidArgument) {
			t.Errorf("%s: %v; want ErrInvalidArgument", c.name, err)
		}
	}
	if _, err := snowflake.NewFixed(3, testLayout(), snowflake.WithMachineBase(4), snowflake.WithLimit(4)); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("NewFixed with a machine base: %v; want ErrInvalidArgument", err)
	}
}
