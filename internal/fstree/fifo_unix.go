//go:build unix

package fstree

import (
	"syscall"
	"testing"
)

// Fifo makes a named pipe at path, for a test that a reader refuses one
// rather than wait for its writer; it skips the test where the file
// system cannot hold one.
func Fifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}
