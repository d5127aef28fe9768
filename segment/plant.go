//go:build !cosid_plant_hostzone

package segment

// plantHostZone plants a defect for internal/testkit/sim to find: a Periodic that computes
// its period keys in the host's zone (build tag cosid_plant_hostzone). Never set
// otherwise.
const plantHostZone = false
