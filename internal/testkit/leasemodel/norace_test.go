//go:build !race

package leasemodel

const raceEnabled = false
