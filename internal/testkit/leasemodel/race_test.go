//go:build race

package leasemodel

const raceEnabled = true
