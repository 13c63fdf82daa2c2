package render

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// pageHead is how every page Write produces begins, its generator line
// included: IsPage recognises a page by it.
const pageHead = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"detsim render\">\n"

// IsPage reports whether the regular file at path is a page Write
// produced (it begins as every one does), so a caller that replaces only
// its own pages (the stepper's picture key) can tell one from a file
// someone else wrote. A missing file is false with no error; it never
// follows a symbolic link.
func IsPage(path string) (bool, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !info.Mode().IsRegular():
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(pageHead))
	if _, err := io.ReadFull(f, head); err != nil {
		return false, nil // shorter than any page
	}
	return bytes.Equal(head, []byte(pageHead)), nil
}
