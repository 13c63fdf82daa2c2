package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/detsim/detsim/internal/safefile"
)

// pageHead is how every page Write produces begins, its generator line
// included.
const pageHead = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"detsim render\">\n"

// A page ends with a comment holding the SHA-256 of every byte before it:
// what makes "a page detsim wrote" checkable byte for byte. A page the
// user appended notes to, or edited, no longer ends with the hash of
// what precedes it.
const (
	trailerStart = "<!-- detsim render sha256 "
	trailerEnd   = " -->\n"
	trailerBytes = len(trailerStart) + 2*sha256.Size + len(trailerEnd)
)

func trailer(sum []byte) []byte {
	b := make([]byte, 0, trailerBytes)
	b = append(b, trailerStart...)
	b = hex.AppendEncode(b, sum)
	return append(b, trailerEnd...)
}

// IsPage reports whether the regular file at path is, byte for byte, a
// page Write produced: it begins as every page does and ends with the
// hash of everything before its last line. A caller that replaces only
// its own pages (the stepper's picture key) thus never replaces a page
// someone changed. A missing file is false with no error; it never
// follows a symbolic link, and never blocks on a FIFO. The file is read
// once, in bounded memory.
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
	f, err := safefile.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false, err
	}
	body := info.Size() - int64(trailerBytes)
	if body < int64(len(pageHead)) {
		return false, nil
	}
	head := make([]byte, len(pageHead))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, []byte(pageHead)) {
		return false, nil
	}
	h := sha256.New()
	h.Write(head)
	if _, err := io.CopyN(h, f, body-int64(len(pageHead))); err != nil {
		return false, nil
	}
	tail := make([]byte, trailerBytes+1)
	n, _ := io.ReadFull(f, tail)
	return bytes.Equal(tail[:n], trailer(h.Sum(nil))), nil
}
