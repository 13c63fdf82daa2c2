package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/safefile"
)

// This file holds the package's only reads of the host filesystem. They
// fetch the run's input; nothing decided during a run depends on them.
// Every read goes through safefile, so a FIFO, socket, device or
// directory named as a scenario or an extends target is refused before a
// byte is read (never a read that waits for a writer).

// Load parses the scenario file at path and the files it extends.
func Load(path string, reg *hosts.Registry) (*Scenario, error) {
	data, err := readOSFile(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: "cannot read: " + err.Error()}}
	}
	return Parse(path, data, reg, readOSFile)
}

// Bundle files Resolve looks for in a directory (bundle/ writes them).
const (
	bundleManifest = "manifest.json"
	bundleScenario = "scenario.toml"
)

// Resolve loads arg as a file path if such a file exists, else as the name
// of an embedded scenario (DESIGN §4 "Bundle and CLI"). An existing
// directory is never a library name: a bundle directory (it holds
// manifest.json) loads the bundle's merged scenario.toml, which carries
// the seed the bundle was run with; any other directory is an error.
func Resolve(arg string, reg *hosts.Registry) (*Scenario, error) {
	if info, err := os.Stat(arg); err == nil {
		if !info.IsDir() {
			return Load(arg, reg)
		}
		m, err := safefile.OpenFileIn(arg, bundleManifest)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, Errors{{File: arg, Msg: "is a directory, not a scenario file (nor a bundle: no " + bundleManifest + ")"}}
		case err != nil:
			// A manifest that is there but cannot be opened (a FIFO, a
			// link out of the bundle) is named as what it is.
			return nil, Errors{{File: filepath.Join(arg, bundleManifest), Msg: "cannot read: " + err.Error()}}
		}
		m.Close()
		// Read through the bundle's root, as every other bundle file is: a
		// scenario.toml linking out of the bundle is refused, not run.
		path := filepath.Join(arg, bundleScenario)
		data, err := safefile.ReadFileIn(arg, bundleScenario, MaxFileBytes)
		if err != nil {
			return nil, Errors{{File: path, Msg: "cannot read: " + err.Error()}}
		}
		// A bundle's scenario is the merged one (bundle/ writes it so): it
		// extends nothing, and an extends in it is refused rather than
		// read from outside the bundle.
		return Parse(path, data, reg, nil)
	}
	if inLibrary(arg, reg) {
		return LoadLibrary(arg, reg)
	}
	return nil, Errors{{File: arg, Msg: "no such file, and no embedded scenario of that name (embedded: " +
		strings.Join(LibraryNames(reg), ", ") + ")"}}
}

// readOSFile reads a slash-separated path from the host filesystem. A
// file larger than the largest scenario allowed is refused from its size,
// not read. Errors say "it" for the file: the caller names it.
func readOSFile(path string) ([]byte, error) {
	f, err := safefile.Open(filepath.FromSlash(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.Read(f, "it", MaxFileBytes)
}
