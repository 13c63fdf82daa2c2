package scenarios

import (
	"embed"
	"io/fs"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// Library is the core's scenario library embedded in the binary: every
// .toml file one directory below this package (reference/, testbed/,
// calibration/, regression/), so detsim runs with no files around it.
// A kind's scenarios live in its own library (hosts.Librarian; SWIM's
// smoke/ and reproduction/ in kinds/swim/swimhost/library); these stay
// here because they are opened by path or are the core's own reference
// (docs/architecture.md, "The libraries").
// NB: the pattern also embeds a .toml put in testdata/; keep test
// fixtures out of .toml files here.
//
//go:embed */*.toml
var Library embed.FS

// Libraries are the libraries scenarios are named from: the core's
// (Library) first, then each kind of reg that ships one (hosts.Librarian),
// in registration order. A kind's scenarios are <dir>/<name>.toml there;
// its properties/ directory holds properties, not scenarios.
func Libraries(reg *hosts.Registry) []fs.FS {
	libs := []fs.FS{Library}
	if reg == nil {
		return libs
	}
	for _, k := range reg.Kinds() {
		if lib := hosts.LibraryOf(k); lib != nil {
			libs = append(libs, lib)
		}
	}
	return libs
}

// libraryFiles are the scenario files of lib ("smoke/three_mesh.toml").
func libraryFiles(lib fs.FS) []string {
	files, _ := fs.Glob(lib, "*/*.toml") // a valid pattern: no error
	return slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(f, "properties/") })
}

// LibraryNames returns the names of the library scenarios of the core and
// of reg's kinds, sorted, in the form LoadLibrary and the CLI accept
// ("reproduction/gossip_flap").
func LibraryNames(reg *hosts.Registry) []string {
	var names []string
	for _, lib := range Libraries(reg) {
		for _, f := range libraryFiles(lib) {
			names = append(names, strings.TrimSuffix(f, ".toml"))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// LibraryClashes names every library scenario file that more than one of
// Libraries(reg) holds: a build mistake (the first would hide the rest).
func LibraryClashes(reg *hosts.Registry) []string {
	seen := map[string]bool{}
	var out []string
	for _, lib := range Libraries(reg) {
		for _, f := range libraryFiles(lib) {
			if seen[f] {
				out = append(out, f)
			}
			seen[f] = true
		}
	}
	return out
}

// ReadLibrary reads the library scenario file ("smoke/three_mesh.toml")
// from the first of Libraries(reg) that holds it.
func ReadLibrary(reg *hosts.Registry, file string) ([]byte, error) {
	for i, lib := range Libraries(reg) {
		if i > 0 && strings.HasPrefix(file, "properties/") {
			continue // a kind's properties are not scenarios
		}
		if data, err := fs.ReadFile(lib, file); err == nil {
			return data, nil
		}
	}
	return nil, &fs.PathError{Op: "open", Path: file, Err: fs.ErrNotExist}
}

// LoadLibrary parses the library scenario name ("smoke/three_mesh" or
// "smoke/three_mesh.toml"), the core's or one of reg's kinds'. Its
// extends resolve inside the libraries. The scenario's Path is the file
// name ("smoke/three_mesh.toml").
func LoadLibrary(name string, reg *hosts.Registry) (*Scenario, error) {
	file := libraryFile(name)
	read := func(f string) ([]byte, error) { return ReadLibrary(reg, f) }
	data, err := read(file)
	if err != nil {
		return nil, Errors{{File: file, Msg: "no embedded scenario of that name"}}
	}
	return Parse(file, data, reg, read)
}

func libraryFile(name string) string {
	if strings.HasSuffix(name, ".toml") {
		return name
	}
	return name + ".toml"
}

func inLibrary(name string, reg *hosts.Registry) bool {
	_, err := ReadLibrary(reg, libraryFile(name))
	return err == nil
}
