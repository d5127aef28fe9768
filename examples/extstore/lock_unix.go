//go:build unix

package extstore

import (
	"errors"
	"os"
	"syscall"
)

// openLock opens the lock file at path, creating it. Its lock is flock(2)'s, which
// each open file holds apart from every other, in this process or another, and which
// the system drops when the process dies, so that a crash leaves no lock behind.
func openLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// lock waits for f's lock, exclusive or shared.
func lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unlock gives f's lock up.
func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
