// Package cputime is the CPU time this process has used, for the
// benchmarks that report it beside wall time: on a shared, noisy machine
// it is steadier than wall time.
//
// Outside the determinism fence: it reads the process's own usage.
package cputime

import "time"

// Self is the CPU time (user + system) this process has used so far, or
// 0 where the platform does not measure it (then CPU metrics read 0).
func Self() time.Duration { return self() }
