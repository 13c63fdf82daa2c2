//go:build unix

package scratch

import (
	"errors"
	"os"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

// canLock says flock works here, so Sweep can tell stale from live.
const canLock = true

// tryLock takes f's exclusive flock without waiting. The kernel releases
// it when the process dies, however it dies: that is what makes a
// leftover recognisably stale.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
