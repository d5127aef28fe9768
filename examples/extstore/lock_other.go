//go:build !unix

package extstore

import (
	"errors"
	"os"
)

// errNoFlock is why the store does not open where flock(2) is missing: without a
// lock that other processes respect, two of them could hand out one range twice.
var errNoFlock = errors.New("the store's file lock needs flock(2), which this system lacks")

func openLock(string) (*os.File, error)    { return nil, errNoFlock }
func tryLock(*os.File, bool) (bool, error) { return false, errNoFlock }
func unlock(*os.File) error                { return errNoFlock }
