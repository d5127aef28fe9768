//go:build cosid_plant_anystore

package httpstore

const (
	plantAnyStore = true
	plantStick    = false
)
