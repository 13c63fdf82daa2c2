//go:build unix

package safefile

import "syscall"

// ReadFlags opens for reading without waiting for a FIFO's writer.
const ReadFlags = syscall.O_RDONLY | syscall.O_NONBLOCK
