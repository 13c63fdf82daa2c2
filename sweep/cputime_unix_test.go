//go:build unix

package sweep

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, every thread and the
// garbage collector included: on a machine shared with other work it
// measures a sweep's cost where wall time cannot.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
