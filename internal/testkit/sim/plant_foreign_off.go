//go:build !cosid_plant_foreign

package sim

// plantForeign makes a non-owner's release record the store's now as the owner's
// last use, as the 4.x revert did before issue 18 (build tag cosid_plant_foreign),
// to prove the simulation finds it.
const plantForeign = false
