package zkstore

import (
	"encoding/json"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// escape returns name as one element of a ZooKeeper path: letters, digits, '-' and
// '_' stay, every other byte becomes %XX. ZooKeeper refuses some code points and the
// elements "." and "..", and '/' would split the name; escaping every other byte
// keeps one name one znode, and two names never share one.
func escape(name string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			b = append(b, c)
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// value is the data of a range znode: the key's next value, and whether it is sealed.
type value struct {
	Next   int64 `json:"next"`
	Sealed bool  `json:"sealed,omitempty"`
}

// parseValue reads the data of a range znode, refusing fields the store does not
// write and a negative next value.
func parseValue(b []byte) (value, error) {
	return parse[value](b, "range value", func(v value) bool { return v.Next >= 0 })
}

// meta is the data of a namespace znode: the settings fixed at its first use.
type meta struct {
	Limit       int   `json:"limit"`
	ToleranceMs int64 `json:"toleranceMs"`
}

// parseMeta reads a namespace znode's data, refusing fields the store does not write
// and settings that CheckLeaseRequest would refuse.
func parseMeta(b []byte) (meta, error) {
	return parse[meta](b, "namespace settings", func(m meta) bool {
		return m.Limit >= 1 && m.Limit <= store.MaxSlots && m.ToleranceMs >= 0
	})
}

// encode returns v as the JSON data of a znode.
func encode(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// parse decodes b, the data of a znode of kind what, as the store writes it: one
// JSON object without unknown fields, whose values pass valid.
func parse[T any](b []byte, what string, valid func(T) bool) (T, error) {
	var v T
	if err := storekit.DecodeStrict(b, &v); err != nil {
		return v, fmt.Errorf("%s %.60q: %w", what, b, err)
	}
	if !valid(v) {
		var zero T
		return zero, fmt.Errorf("%s %.60q: a value out of range", what, b)
	}
	return v, nil
}

// rowJSON is the data of a slot znode: the slot's state by the shared rules of
// storekit.SlotRow.
type rowJSON struct {
	Owner       string `json:"owner,omitempty"`
	Incarnation string `json:"incarnation,omitempty"`
	LastOwner   string `json:"lastOwner,omitempty"`
	Fence       int64  `json:"fence"`
	ExpiresMs   int64  `json:"expiresMs"`
	FloorMs     int64  `json:"floorMs"`
	CeilingMs   int64  `json:"ceilingMs"`
	NextFloorMs int64  `json:"nextFloorMs"`
}

func encodeRow(r storekit.SlotRow) []byte { return encode(rowJSON(r)) }

// parseRow reads a slot znode's data, refusing fields the store does not write and
// states that no sequence of acquisitions, renewals and releases leaves.
func parseRow(b []byte) (storekit.SlotRow, error) {
	var j rowJSON
	if err := storekit.DecodeStrict(b, &j); err != nil {
		return storekit.SlotRow{}, fmt.Errorf("slot row %.60q: %w", b, err)
	}
	switch {
	case j.Fence < 1 && (j.Fence != 0 || j.NextFloorMs < 1 || j != rowJSON{NextFloorMs: j.NextFloorMs}):
		return storekit.SlotRow{}, fmt.Errorf("slot row %.60q: fence %d, want ≥ 1, or 0 in a row of a raised floor only", b, j.Fence)
	case (j.Owner == "") != (j.Incarnation == ""):
		return storekit.SlotRow{}, fmt.Errorf("slot row %.60q: an owner without an incarnation, or the reverse", b)
	}
	return storekit.SlotRow(j), nil
}
