//go:build cosid_plant_readahead

package server

const plantReadAhead = 1
