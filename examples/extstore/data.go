package extstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// data is the content of the file: every range key and every namespace of slot
// leases.
type data struct {
	Ranges     map[string]*rangeRow     `json:"ranges"`
	Namespaces map[string]*namespaceRow `json:"namespaces"`
}

// rangeRow is a range key: the value its next Reserve starts at.
type rangeRow struct {
	Next   int64 `json:"next"`
	Sealed bool  `json:"sealed,omitempty"`
}

// namespaceRow is a namespace with the settings it was created with (L4) and the
// rows of the slots ever leased or given a floor: a slot without a row was never
// taken and is free.
type namespaceRow struct {
	Limit       int             `json:"limit"`
	ToleranceMs int64           `json:"toleranceMs"`
	Slots       map[int]slotRow `json:"slots"`
}

// slotRow is storekit.SlotRow as the file keeps it, with names of its own, so that
// the file's format does not follow the kit's field names.
type slotRow struct {
	Owner       string `json:"owner,omitempty"`
	Incarnation string `json:"incarnation,omitempty"`
	LastOwner   string `json:"lastOwner,omitempty"`
	Fence       int64  `json:"fence"`
	ExpiresMs   int64  `json:"expiresMs"`
	FloorMs     int64  `json:"floorMs"`
	CeilingMs   int64  `json:"ceilingMs"`
	NextFloorMs int64  `json:"nextFloorMs"`
}

func rowOf(r slotRow) storekit.SlotRow { return storekit.SlotRow(r) }

func newData() *data {
	return &data{Ranges: map[string]*rangeRow{}, Namespaces: map[string]*namespaceRow{}}
}

func encode(d *data) ([]byte, error) { return json.MarshalIndent(d, "", "\t") }

// check refuses data that no call of this store writes: a file that holds it was
// changed by something else, and reading on could hand out an id twice.
func (d *data) check() error {
	if d.Ranges == nil || d.Namespaces == nil {
		return fmt.Errorf("the file lacks its ranges or namespaces")
	}
	for key, r := range d.Ranges {
		if r == nil || store.CheckKey(key) != nil || r.Next < 0 {
			return fmt.Errorf("range key %q: %+v is no row this store writes", key, r)
		}
	}
	for name, ns := range d.Namespaces {
		if ns == nil || storekit.CheckNamespace(name) != nil || ns.Limit < 1 || ns.Limit > store.MaxSlots || ns.ToleranceMs < 0 || ns.Slots == nil {
			return fmt.Errorf("namespace %q: %+v is no namespace this store writes", name, ns)
		}
		for slot, r := range ns.Slots {
			if slot < 0 || slot >= ns.Limit || (r.Owner == "") != (r.Incarnation == "") {
				return fmt.Errorf("namespace %q, slot %d: %+v is no slot row this store writes", name, slot, r)
			}
		}
	}
	return nil
}

// namespace returns the namespace name, created with limit and tolerance when it
// does not exist, or an error wrapping store.ErrNamespaceConflict when it exists
// with others (L4).
func (d *data) namespace(name string, limit int, tolerance time.Duration) (*namespaceRow, error) {
	toleranceMs := storekit.MillisUp(tolerance)
	ns := d.Namespaces[name]
	if ns == nil {
		ns = &namespaceRow{Limit: limit, ToleranceMs: toleranceMs, Slots: map[int]slotRow{}}
		d.Namespaces[name] = ns
		return ns, nil
	}
	if ns.Limit != limit || ns.ToleranceMs != toleranceMs {
		return nil, fmt.Errorf("extstore: namespace %q: %w", name, storekit.NamespaceConflict(ns.Limit, ns.ToleranceMs, limit, tolerance))
	}
	return ns, nil
}
