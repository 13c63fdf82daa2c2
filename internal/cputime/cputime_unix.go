//go:build linux || darwin || freebsd || netbsd || openbsd

package cputime

import (
	"syscall"
	"time"
)

func self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
