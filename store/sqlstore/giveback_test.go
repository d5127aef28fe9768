package sqlstore

import (
	"testing"

	"github.com/cosid-go/cosid/store"
)

// TestStore_GiveBacker asserts that a Store is a store.GiveBacker on every built-in
// dialect, so that the kit runs its S7 cases on each instead of skipping them.
func TestStore_GiveBacker(t *testing.T) {
	if _, ok := any(&Store{}).(store.GiveBacker); !ok {
		t.Fatal("*sqlstore.Store implements no store.GiveBacker")
	}
	for _, d := range builtins {
		if _, ok := d.Ranges(DefaultTables().quote(d)).(GiveBackRanges); !ok {
			t.Errorf("the Ranges of dialect %s is no GiveBackRanges: its stores cannot give back", d.Name())
		}
	}
}
