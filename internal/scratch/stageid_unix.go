//go:build unix

package scratch

import (
	"fmt"
	"os"
	"syscall"
)

// stageID is how a guard names the stage it made: the directory's
// device and inode number, which no other directory has while it exists.
func stageID(stage string) (string, bool) {
	info, err := os.Lstat(stage)
	if err != nil || !info.IsDir() {
		return "", false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("detsim-stage %d %d\n", uint64(st.Dev), uint64(st.Ino)), true
}
