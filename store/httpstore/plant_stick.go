//go:build cosid_plant_stick

package httpstore

const (
	plantAnyStore = false
	plantStick    = true
)
