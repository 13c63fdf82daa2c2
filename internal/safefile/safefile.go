// Package safefile is the one reader of the files detsim and its daemons
// are handed — scenarios and extends targets, kind configs and key files,
// tolerances, provider scripts, and every file of a bundle that verify,
// calibrate, schemadiff, render and the stepper read — so that no input
// can block a read forever or fill memory: anything but a regular file
// (a FIFO, a device, a directory) is refused before a byte is read, a
// whole-file read stops at a bound, and a file of a bundle is opened
// through an os.Root, so a symbolic link leading out of the bundle
// (-> /etc/passwd, -> /dev/zero) is refused rather than followed. The
// bundle directory itself is opened by OpenRoot, which refuses a FIFO or
// any other non-directory before it could block.
package safefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Open opens path for reading without blocking: opening a FIFO for
// reading normally waits for a writer, which would hang detsim on an
// input it is about to refuse anyway.
func Open(path string) (*os.File, error) { return os.OpenFile(path, ReadFlags, 0) }

// OpenIn is Open for a name inside root.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, ReadFlags, 0)
}

// OpenRoot is os.OpenRoot for a directory detsim was handed, a bundle:
// anything but a directory is refused without blocking. os.OpenRoot opens
// dir with a plain open(2), which on a FIFO waits for a writer for ever
// (and ignores SIGINT while it waits); so dir is stat'ed first, to refuse
// a FIFO, socket, device or file by name, and then opened as dir/., which
// the kernel resolves only if dir is a directory — a FIFO swapped in
// between the two is refused (ENOTDIR) by the open itself, never opened.
func OpenRoot(dir string) (*os.Root, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if err := CheckDir(dir, info); err != nil {
		return nil, err
	}
	return os.OpenRoot(dirOnly(dir))
}

// dirOnly is a name of dir that resolves only if dir is a directory.
func dirOnly(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + "."
	}
	return dir + string(filepath.Separator) + "."
}

// OpenFileIn opens name, a slash-separated path inside dir, for a
// streaming read: through an os.Root on dir (a symbolic link that leaves
// dir is refused), without blocking, and only if it is a regular file.
func OpenFileIn(dir, name string) (*os.File, error) {
	root, err := OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := OpenIn(root, name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = CheckRegular(filepath.Join(dir, filepath.FromSlash(name)), info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFileIn reads name inside dir as ReadFile reads a path, opened as
// OpenFileIn opens it.
func ReadFileIn(dir, name string, max int64) ([]byte, error) {
	f, err := OpenFileIn(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, filepath.Join(dir, filepath.FromSlash(name)), max)
}

// Read reads all of f, which must be a regular file of at most max bytes.
// name is how errors refer to it. It never reads more than max+1 bytes,
// so a file that grows while it is read is still refused, not swallowed.
func Read(f *os.File, name string, max int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(name, info); err != nil {
		return nil, err
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes; at most %d are read", name, info.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past %d bytes while it was read", name, max)
	}
	return data, nil
}

// ReadFile opens and reads path as Read does.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, max)
}

// CheckRegular returns an error naming what name is when info is not a
// regular file: a directory, FIFO, socket or device.
func CheckRegular(name string, info os.FileInfo) error {
	m := info.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a directory, not a file", name)
	}
	return fmt.Errorf("%s is not a regular file (%s)", name, Describe(m))
}

// CheckDir returns an error naming what name is when info is not a
// directory: a regular file, FIFO, socket or device.
//
// CheckDir is CheckRegular the other way round, alike in shape: the two name
// different kinds.
func CheckDir(name string, info os.FileInfo) error {
	m := info.Mode()
	switch {
	case m.IsDir():
		return nil
	case m.IsRegular():
		return fmt.Errorf("%s is a file, not a directory", name)
	}
	return fmt.Errorf("%s is not a directory (%s)", name, Describe(m))
}

// Describe says what kind of file m is, for a refusal: "a named pipe",
// "a character device", "a regular file".
func Describe(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}
