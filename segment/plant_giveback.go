//go:build cosid_plant_giveback

package segment

const plantGiveBackAll = true
