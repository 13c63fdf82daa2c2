//go:build !unix

package scratch

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("lock held")

// canLock is false here: without flock nothing can tell a stale leftover
// from a live one, so Sweep removes nothing and Lock detects no
// concurrent run.
const canLock = false

func tryLock(*os.File) error { return nil }
