package storekit_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// stored is a row as a store keeps it: beside what it needs to write it again.
type stored struct {
	storekit.SlotRow
	version int
}

func rowOf(s stored) storekit.SlotRow { return s.SlotRow }

func TestNewNamespaceInfo_SettingsAndClockInMilliseconds(t *testing.T) {
	got := storekit.NewNamespaceInfo("app", 1024, 1500, 1_700_000_000_123)
	want := store.NamespaceInfo{Namespace: "app", Limit: 1024, Tolerance: 1500 * time.Millisecond, StoreNow: time.UnixMilli(1_700_000_000_123).UTC()}
	if got.Namespace != want.Namespace || got.Limit != want.Limit || got.Tolerance != want.Tolerance ||
		!got.StoreNow.Equal(want.StoreNow) || got.StoreNow.Location() != time.UTC || got.Slots != nil {
		t.Errorf("NamespaceInfo = %+v, want %+v", got, want)
	}
}

// TestListedSlots_SlotOrderLeasedOrRaised checks the slots Admin.Slots lists: in slot
// order whatever the map's, those ever leased or with a raised floor, and no other.
func TestListedSlots_SlotOrderLeasedOrRaised(t *testing.T) {
	held := stored{storekit.SlotRow{Owner: "a", Incarnation: "i", LastOwner: "a", Fence: 3, ExpiresMs: 100, CeilingMs: 110}, 7}
	released := stored{storekit.SlotRow{LastOwner: "b", Fence: 1, NextFloorMs: 50}, 2}
	raised := stored{storekit.SlotRow{NextFloorMs: 900}, 1}
	tests := []struct {
		name string
		rows map[int]stored
		want []int
	}{
		{"None", nil, nil},
		{"SlotOrder", map[int]stored{9: held, 2: released, 5: raised}, []int{2, 5, 9}},
		{"NeitherLeasedNorRaisedLeftOut", map[int]stored{0: {}, 1: held}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := storekit.ListedSlots(tt.rows, rowOf)
			var slots []int
			for _, info := range got {
				slots = append(slots, info.Slot)
				if want := tt.rows[info.Slot].Info(info.Slot); info != want {
					t.Errorf("slot %d listed as %+v, want %+v", info.Slot, info, want)
				}
			}
			if !slices.Equal(slots, tt.want) {
				t.Errorf("Listed gives slots %v, want %v", slots, tt.want)
			}
		})
	}
}

// TestOwnedSlot_LowestSlotOfTheOwner checks the slot Admin.LeaseOf answers with: of
// the rows that name the owner, expired or not, the lowest; none when no row does,
// even one that the owner had last.
func TestOwnedSlot_LowestSlotOfTheOwner(t *testing.T) {
	of := func(owner string, expiresMs int64) stored {
		return stored{storekit.SlotRow{Owner: owner, Incarnation: "i", LastOwner: owner, Fence: 1, ExpiresMs: expiresMs}, 0}
	}
	rows := map[int]stored{
		7: of("a", 100),
		3: of("a", 5), // expired, still a's
		1: of("b", 100),
		0: {storekit.SlotRow{LastOwner: "c", Fence: 2}, 0},
	}
	tests := []struct {
		owner  string
		want   int
		wantOK bool
	}{
		{"a", 3, true},
		{"b", 1, true},
		{"c", -1, false},
		{"x", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.owner, func(t *testing.T) {
			slot, ok := storekit.OwnedSlot(rows, rowOf, tt.owner)
			if slot != tt.want || ok != tt.wantOK {
				t.Errorf("OwnedBy(%q) = %d, %v; want %d, %v", tt.owner, slot, ok, tt.want, tt.wantOK)
			}
		})
	}
}
