package scratch

import "golang.org/x/sys/unix"

// renameNoReplace renames from to to, failing if to exists: Dir's rename
// must never replace a directory someone made under that name meanwhile.
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}
