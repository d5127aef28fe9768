package storekit_test

import (
	"testing"

	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storekit"
)

func TestStoreID_OnePerBackend(t *testing.T) {
	a, b := memstore.New(), memstore.New()
	idA, err := storekit.StoreID(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	again, err := storekit.StoreID(t.Context(), a.Sibling())
	if err != nil {
		t.Fatal(err)
	}
	idB, err := storekit.StoreID(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	if again != idA {
		t.Errorf("StoreID of a second store on one backend = %q, want %q", again, idA)
	}
	if idB == idA {
		t.Errorf("StoreID of two new backends = %q both, want two identities", idA)
	}
	if len(idA) != 16 {
		t.Errorf("StoreID = %q, want 16 hex digits", idA)
	}
}

func TestStoreID_NoReserveMovesIt(t *testing.T) {
	st := memstore.New()
	id, err := storekit.StoreID(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), storekit.StoreIDKey, 10, 0); err == nil {
		t.Error("Reserve of the identity's key succeeded, want it sealed")
	}
	if again, _ := storekit.StoreID(t.Context(), st); again != id {
		t.Errorf("StoreID after a Reserve = %q, want %q", again, id)
	}
}
