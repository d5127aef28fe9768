//go:build cosid_plant_foreign

package sim

const plantForeign = true

func init() { plantTags = append(plantTags, "cosid_plant_foreign") }
