//go:build race

package server

// raceEnabled tells that the race detector runs, under which sync.Pool drops some of
// what it is given and allocation counts mean nothing.
const raceEnabled = true
