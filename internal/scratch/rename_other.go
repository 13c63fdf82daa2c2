//go:build !linux

package scratch

import (
	"errors"
	"io/fs"
	"os"
)

// renameNoReplace renames from to to unless to exists. Without Linux's
// RENAME_NOREPLACE the check and the rename are two steps; the name was
// the guard file's a moment before, drawn at random.
func renameNoReplace(from, to string) error {
	if _, err := os.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return os.Rename(from, to)
}
