package storekit

// A namespace may have up to store.MaxSlots slots (2^22; a cosid-generator's has
// 2^20), of which a service leases a few. A store keeps a record (a row, a
// document, a key, a znode) only for the slots that have been taken, or a few more:
// never one for every slot at the namespace's first use. A store whose records
// are made by the acquisition that takes a slot keeps that rule by itself; a store
// that provisions records ahead and then takes them with compare-and-swaps (SQL)
// provisions them with SlotsToProvision.

// ProvisionFirst is how many slot records a store that provisions them ahead makes
// for a new namespace (fewer when the namespace has fewer slots).
const ProvisionFirst = 16

// SlotsToProvision returns how many of a namespace's lowest slots, [0, n), a store
// that provisions slot records ahead should have records for, when held of its
// records are leased and none is free: twice held, at least ProvisionFirst, at most
// limit. It doubles, so that a namespace of n leased slots is provisioned about
// log2(n) times and never holds more than twice as many records as leases, or
// ProvisionFirst. A store that asks it again after provisioning and gets no more
// than it has has no slot to offer: store.ErrNoFreeSlot. The records are of the
// lowest slots, so that slots below n without one (never taken) are made too; a
// preferred slot above them is provisioned alone.
func SlotsToProvision(held, limit int) int {
	return min(limit, max(ProvisionFirst, 2*held))
}
