package wire

import (
	"time"

	"github.com/cosid-go/cosid/store"
)

// The paths of the admin operations of the store API (store.Admin), for the
// operator's commands through a cosid serve.
const (
	PathKeys       = "/v1/store/admin/keys"
	PathRaise      = "/v1/store/admin/raise"
	PathSlots      = "/v1/store/admin/slots"
	PathLeaseOf    = "/v1/store/admin/lease-of"
	PathRaiseFloor = "/v1/store/admin/raise-floor"
)

// The error codes of the admin operations' sentinels.
const (
	CodeAbsent   = "absent"    // store.ErrNotFound: no such namespace or lease
	CodeSlotHeld = "slot_held" // store.ErrSlotHeld
)

// KeysRequest is the body of PathKeys.
type KeysRequest struct {
	Prefix string `json:"prefix"`
	After  string `json:"after"`
	Limit  int    `json:"limit"`
}

// KeyInfo is a store.KeyInfo in JSON; the value is a string, like every id of the API.
type KeyInfo struct {
	Key    string `json:"key"`
	Next   int64  `json:"next,string"`
	Sealed bool   `json:"sealed"`
}

// Keys is the answer of PathKeys.
type Keys struct {
	Keys []KeyInfo `json:"keys"`
}

// RaiseRequest is the body of PathRaise.
type RaiseRequest struct {
	Key  string `json:"key"`
	Next int64  `json:"next,string"`
}

// Raised is a store.Raised in JSON, the answer of PathRaise.
type Raised struct {
	Key     string `json:"key"`
	Before  int64  `json:"before,string"`
	After   int64  `json:"after,string"`
	Created bool   `json:"created"`
	Sealed  bool   `json:"sealed"`
}

// SlotsRequest is the body of PathSlots.
type SlotsRequest struct {
	Namespace string `json:"namespace"`
}

// SlotInfo is a store.SlotInfo in JSON.
type SlotInfo struct {
	Slot         int       `json:"slot"`
	OwnerKey     string    `json:"ownerKey"`
	LastOwnerKey string    `json:"lastOwnerKey"`
	Fence        int64     `json:"fence"`
	ExpiresAt    time.Time `json:"expiresAt"`
	Floor        int64     `json:"floor"`
	Ceiling      int64     `json:"ceiling"`
	NextFloor    int64     `json:"nextFloor"`
}

// NamespaceInfo is a store.NamespaceInfo in JSON, the answer of PathSlots; the
// tolerance is a Go duration string.
type NamespaceInfo struct {
	Namespace string     `json:"namespace"`
	Limit     int        `json:"limit"`
	Tolerance string     `json:"tolerance"`
	StoreNow  time.Time  `json:"storeNow"`
	Slots     []SlotInfo `json:"slots"`
}

// FromNamespaceInfo returns info in JSON.
func FromNamespaceInfo(info store.NamespaceInfo) NamespaceInfo {
	out := NamespaceInfo{Namespace: info.Namespace, Limit: info.Limit, Tolerance: info.Tolerance.String(), StoreNow: info.StoreNow}
	for _, s := range info.Slots {
		out.Slots = append(out.Slots, SlotInfo(s))
	}
	return out
}

// Store returns the namespace info n stands for.
func (n NamespaceInfo) Store() (store.NamespaceInfo, error) {
	tol, err := Duration("tolerance", n.Tolerance)
	info := store.NamespaceInfo{Namespace: n.Namespace, Limit: n.Limit, Tolerance: tol, StoreNow: n.StoreNow}
	for _, s := range n.Slots {
		info.Slots = append(info.Slots, store.SlotInfo(s))
	}
	return info, err
}

// LeaseOfRequest is the body of PathLeaseOf.
type LeaseOfRequest struct {
	Namespace string `json:"namespace"`
	OwnerKey  string `json:"ownerKey"`
}

// RaiseFloorRequest is the body of PathRaiseFloor; the tolerance is a Go duration
// string.
type RaiseFloorRequest struct {
	Namespace string `json:"namespace"`
	Limit     int    `json:"limit"`
	Tolerance string `json:"tolerance"`
	Slot      int    `json:"slot"`
	FloorMs   int64  `json:"floorMs"`
}
