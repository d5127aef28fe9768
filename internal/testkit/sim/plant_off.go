//go:build !cosid_plant_overlap

package sim

// plantOverlap makes the simulated store hand out one range that overlaps the one
// before it (build tag cosid_plant_overlap), to prove the simulation finds it.
const plantOverlap = false
