//go:build !cosid_plant_nocompare

package sim

// plantNoCompare makes the simulated store's give-back lower a key to the tail's
// start without comparing its value with the tail's end, so that it lowers a key
// another machine reserved from since (build tag cosid_plant_nocompare), to prove
// the simulation finds it.
const plantNoCompare = false
