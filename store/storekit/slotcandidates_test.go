package storekit_test

import (
	"slices"
	"testing"

	"github.com/cosid-go/cosid/store/storekit"
)

// TestSlotCandidates_L5_OrderAndFreedom checks the order in which an acquirer tries
// slots: the owner's earlier ones (L5), the preferred one, then the lowest; and that
// only slots free at the given time, or never taken, are offered.
func TestSlotCandidates_L5_OrderAndFreedom(t *testing.T) {
	held := storekit.SlotRow{Owner: "b", Incarnation: "i", LastOwner: "b", Fence: 1, ExpiresMs: 100}
	expired := storekit.SlotRow{Owner: "c", Incarnation: "i", LastOwner: "c", Fence: 1, ExpiresMs: 50}
	released := storekit.SlotRow{LastOwner: "a", Fence: 2}
	rows := map[int]storekit.SlotRow{0: held, 1: expired, 5: released, 6: {LastOwner: "a", Fence: 1}}
	tests := []struct {
		name      string
		owner     string
		preferred int
		nowMs     int64
		n         int
		want      []int
	}{
		{"OwnerFirstThenLowest", "a", -1, 60, 4, []int{5, 6, 1, 2}},
		{"PreferredAfterOwner", "a", 3, 60, 4, []int{5, 6, 3, 1}},
		{"HeldSkipped", "x", 0, 60, 3, []int{1, 2, 3}},
		{"ExpiryIsAtOrBelowNow", "x", -1, 100, 2, []int{0, 1}},
		{"NotYetExpired", "x", -1, 49, 2, []int{2, 3}},
		{"HeldPreviousSlotNotOffered", "b", -1, 60, 2, []int{1, 2}},
		{"Limit", "x", -1, 60, 16, []int{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := storekit.SlotCandidates(rows, 8, tt.owner, tt.preferred, tt.nowMs, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("Candidates = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSlotCandidatesWhere_BackendJudgesFreedom checks the order of Candidates when the
// store's backend, not the rows' expiry, says which slots are free: a row that
// expired long ago but is held is skipped, one unexpired but not held is offered.
func TestSlotCandidatesWhere_BackendJudgesFreedom(t *testing.T) {
	rows := map[int]storekit.SlotRow{
		0: {Owner: "b", Incarnation: "i", LastOwner: "b", Fence: 1, ExpiresMs: 1},    // expired, held
		4: {Owner: "a", Incarnation: "i", LastOwner: "a", Fence: 1, ExpiresMs: 1e12}, // unexpired, not held
		6: {LastOwner: "a", Fence: 3},
	}
	held := map[int]bool{0: true, 2: true}
	free := func(slot int) bool { return !held[slot] }
	tests := []struct {
		name      string
		owner     string
		preferred int
		n         int
		want      []int
	}{
		{"OwnerFirstThenLowest", "a", -1, 4, []int{4, 6, 1, 3}},
		{"PreferredHeldSkipped", "x", 2, 3, []int{1, 3, 4}},
		{"PreferredFree", "x", 5, 2, []int{5, 1}},
		{"Limit", "x", -1, 16, []int{1, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := storekit.SlotCandidatesWhere(rows, 8, tt.owner, tt.preferred, tt.n, free); !slices.Equal(got, tt.want) {
				t.Errorf("CandidatesWhere = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSlotRows_ReadsEachSlot(t *testing.T) {
	in := map[int]stored{2: {storekit.SlotRow{Fence: 2}, 9}, 5: {storekit.SlotRow{Fence: 5}, 1}}
	got := storekit.SlotRows(in, rowOf)
	if len(got) != 2 || got[2].Fence != 2 || got[5].Fence != 5 {
		t.Errorf("Rows = %+v, want the rows of slots 2 and 5", got)
	}
}
