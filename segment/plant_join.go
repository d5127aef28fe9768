//go:build cosid_plant_join

package segment

const plantJoin = true
