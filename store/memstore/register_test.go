package memstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// entry is the Spec of a memory store whose settings decode into v as fill says.
func entry(fill func(v any) error) store.Spec {
	return store.Spec{Name: "mem", Path: "cosid.stores.mem", Decode: fill}
}

// TestRegister_Memory checks the configuration type "memory": no settings, slots
// leased, no timeout, and a new, empty store for every Open.
func TestRegister_Memory(t *testing.T) {
	typ, ok := store.Lookup("memory")
	if !ok {
		t.Fatal(`store type "memory" is not registered`)
	}
	none := entry(func(any) error { return nil })
	facts, err := typ.Check(none)
	if err != nil || !facts.Leases || facts.Timeout != 0 {
		t.Errorf("Check = %+v, %v; want slots leased and no timeout", facts, err)
	}
	var ranges []store.Range
	for range 2 {
		st, err := typ.Open(t.Context(), none)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := st.(*memstore.Store); !ok {
			t.Fatalf("Open = %T, want a *memstore.Store", st)
		}
		r, err := st.Reserve(t.Context(), "k", 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		ranges = append(ranges, r)
		st.Close()
	}
	if ranges[0] != ranges[1] || ranges[0] != (store.Range{Start: 1, End: 6}) {
		t.Errorf("the first ranges of two opens = %v, want [1, 6) each: every store starts empty", ranges)
	}
}

// TestRegister_RefusesSettings checks that a setting, which the type does not take,
// fails Check and Open alike with an error wrapping store.ErrInvalidArgument.
func TestRegister_RefusesSettings(t *testing.T) {
	typ, _ := store.Lookup("memory")
	unknown := errors.New("cosid.stores.mem.size: unknown key; cosid.stores.mem takes no settings")
	spec := entry(func(any) error { return unknown })
	if _, err := typ.Check(spec); !errors.Is(err, store.ErrInvalidArgument) || !errors.Is(err, unknown) {
		t.Errorf("Check: %v, want the decoder's error wrapping store.ErrInvalidArgument", err)
	}
	if st, err := typ.Open(t.Context(), spec); st != nil || !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), "size") {
		t.Errorf("Open = %v, %v; want no store and the decoder's error", st, err)
	}
}
