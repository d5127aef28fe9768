//go:build !cosid_plant_floor

package snowflake

// plantIgnoreFloor plants a defect for internal/testkit/sim to find: a generator that
// ignores its lease's Floor (build tag cosid_plant_floor). Never set otherwise.
const plantIgnoreFloor = false
