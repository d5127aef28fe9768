package etcdstore

import (
	"encoding/json"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// meta is the value of a namespace's meta key: the settings fixed at its first use.
type meta struct {
	Limit       int   `json:"limit"`
	ToleranceMs int64 `json:"toleranceMs"`
}

func (m meta) encode() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// parseMeta reads a meta value, refusing fields the store does not write and
// settings that CheckLeaseRequest would refuse.
func parseMeta(b []byte) (meta, error) {
	var m meta
	if err := storekit.DecodeStrict(b, &m); err != nil {
		return meta{}, fmt.Errorf("namespace settings %.60q: %w", b, err)
	}
	if m.Limit < 1 || m.Limit > store.MaxSlots || m.ToleranceMs < 0 {
		return meta{}, fmt.Errorf("namespace settings %.60q: limit %d or tolerance %dms out of range", b, m.Limit, m.ToleranceMs)
	}
	return m, nil
}

// row is the value of a slot's row key: the slot's state by the shared rules of
// storekit.SlotRow, and the etcd lease that its held key is attached to (0: none).
type row struct {
	storekit.SlotRow
	EtcdLease clientv3.LeaseID
}

// rowJSON is the text form of a row.
type rowJSON struct {
	Owner       string `json:"owner,omitempty"`
	Incarnation string `json:"incarnation,omitempty"`
	LastOwner   string `json:"lastOwner,omitempty"`
	Fence       int64  `json:"fence"`
	ExpiresMs   int64  `json:"expiresMs"`
	FloorMs     int64  `json:"floorMs"`
	CeilingMs   int64  `json:"ceilingMs"`
	NextFloorMs int64  `json:"nextFloorMs"`
	EtcdLease   int64  `json:"etcdLease,omitempty"`
}

func (r row) encode() string {
	b, _ := json.Marshal(rowJSON{
		Owner: r.Owner, Incarnation: r.Incarnation, LastOwner: r.LastOwner, Fence: r.Fence,
		ExpiresMs: r.ExpiresMs, FloorMs: r.FloorMs, CeilingMs: r.CeilingMs, NextFloorMs: r.NextFloorMs,
		EtcdLease: int64(r.EtcdLease),
	})
	return string(b)
}

// parseRow reads a row value, refusing fields the store does not write and states
// that no sequence of acquisitions, renewals, releases and raises of the floor leaves.
func parseRow(b []byte) (row, error) {
	var j rowJSON
	if err := storekit.DecodeStrict(b, &j); err != nil {
		return row{}, fmt.Errorf("slot row %.60q: %w", b, err)
	}
	switch {
	case j.Fence < 1 && (j != rowJSON{NextFloorMs: j.NextFloorMs} || j.NextFloorMs < 1): // fence 0: RaiseFloor's row of a slot never leased
		return row{}, fmt.Errorf("slot row %.60q: fence %d, want ≥ 1, or 0 with only a next floor above 0", b, j.Fence)
	case (j.Owner == "") != (j.Incarnation == ""):
		return row{}, fmt.Errorf("slot row %.60q: an owner without an incarnation, or the reverse", b)
	case j.Owner == "" && j.EtcdLease != 0, j.EtcdLease < 0:
		return row{}, fmt.Errorf("slot row %.60q: etcd lease %d of a slot with owner %q", b, j.EtcdLease, j.Owner)
	}
	return row{storekit.SlotRow{
		Owner: j.Owner, Incarnation: j.Incarnation, LastOwner: j.LastOwner, Fence: j.Fence,
		ExpiresMs: j.ExpiresMs, FloorMs: j.FloorMs, CeilingMs: j.CeilingMs, NextFloorMs: j.NextFloorMs,
	}, clientv3.LeaseID(j.EtcdLease)}, nil
}
