//go:build !cosid_plant_anystore && !cosid_plant_stick

package httpstore

// The defects integration/servicesim must find, planted with a build tag: a Store
// that takes the answer of a server of any store (cosid_plant_anystore), and one
// that stays on a server that does not answer (cosid_plant_stick). Never set in a
// build of the store.
const (
	plantAnyStore = false
	plantStick    = false
)
