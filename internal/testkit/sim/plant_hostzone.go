//go:build cosid_plant_hostzone

package sim

func init() { plantTags = append(plantTags, "cosid_plant_hostzone") }
