//go:build !race

package servicesim

const raceEnabled = false
