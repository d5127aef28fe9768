//go:build cosid_plant_floor

package sim

func init() { plantTags = append(plantTags, "cosid_plant_floor") }
