package storekit_test

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// TestSlotsToProvision_DoublesWithinLimit checks the rule of provisioning: the
// first records of a namespace, then twice the held ones, never past the limit.
func TestSlotsToProvision_DoublesWithinLimit(t *testing.T) {
	for _, tt := range []struct{ held, limit, want int }{
		{0, store.MaxSlots, storekit.ProvisionFirst},
		{0, 4, 4},
		{16, store.MaxSlots, 32},
		{32, 40, 40},
		{40, 40, 40},
		{1 << 20, 1 << 20, 1 << 20},
		{1000, store.MaxSlots, 2000},
	} {
		if got := storekit.SlotsToProvision(tt.held, tt.limit); got != tt.want {
			t.Errorf("SlotsToProvision(%d, %d) = %d, want %d", tt.held, tt.limit, got, tt.want)
		}
	}
	// Growing from nothing to the limit takes about log2(limit) steps.
	steps, n := 0, 0
	for {
		next := storekit.SlotsToProvision(n, 1<<20)
		if next == n {
			break
		}
		n, steps = next, steps+1
	}
	if n != 1<<20 || steps > 17 {
		t.Errorf("provisioning a namespace of 2^20 slots took %d steps to %d, want about 16 to 2^20", steps, n)
	}
}
