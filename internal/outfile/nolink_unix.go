//go:build unix

package outfile

import (
	"errors"
	"syscall"
)

// isNoLink reports a link refused because the filesystem has no hard
// links (FAT, some FUSE mounts), not because of the path.
func isNoLink(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV)
}
