//go:build cosid_plant_floor

package snowflake

const plantIgnoreFloor = true
