//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package bench

import "time"

// cpuTime is not measured on this platform; CPU metrics read 0.
func cpuTime() time.Duration { return 0 }
