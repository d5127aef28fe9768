//go:build cosid_plant_overlap

package sim

const plantOverlap = true

func init() { plantTags = append(plantTags, "cosid_plant_overlap") }
