//go:build linux || darwin || freebsd || netbsd || openbsd

package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used so far:
// on a shared, noisy machine it is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
