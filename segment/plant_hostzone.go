//go:build cosid_plant_hostzone

package segment

const plantHostZone = true
