//go:build cosid_plant_nocompare

package sim

const plantNoCompare = true

func init() { plantTags = append(plantTags, "cosid_plant_nocompare") }
