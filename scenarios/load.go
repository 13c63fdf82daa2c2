package scenarios

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// This file holds the package's only reads of the host filesystem. They
// fetch the run's input; nothing decided during a run depends on them.

// Load parses the scenario file at path and the files it extends.
func Load(path string, reg *hosts.Registry) (*Scenario, error) {
	data, err := readOSFile(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: "cannot read: " + err.Error()}}
	}
	return Parse(path, data, reg, readOSFile)
}

// Resolve loads arg as a file path if such a file exists, else as the name
// of an embedded scenario (DESIGN §4 "Bundle and CLI").
func Resolve(arg string, reg *hosts.Registry) (*Scenario, error) {
	if info, err := os.Stat(arg); err == nil && !info.IsDir() {
		return Load(arg, reg)
	}
	if inLibrary(arg) {
		return LoadLibrary(arg, reg)
	}
	return nil, Errors{{File: arg, Msg: "no such file, and no embedded scenario of that name (embedded: " +
		strings.Join(LibraryNames(), ", ") + ")"}}
}

// readOSFile reads a slash-separated path from the host filesystem. It
// stops one byte past the largest scenario allowed, so a huge file is a
// quick "too large" from Parse rather than a long read.
func readOSFile(path string) ([]byte, error) {
	f, err := os.Open(filepath.FromSlash(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}
