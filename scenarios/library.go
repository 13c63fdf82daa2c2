package scenarios

import (
	"embed"
	"io/fs"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// Library is the scenario library embedded in the binary: every .toml file
// one directory below this package (smoke/, reproduction/, topology/,
// calibration/, reference/, …), so detsim runs with no files around it.
// NB: the pattern also embeds a .toml put in testdata/; keep test
// fixtures out of .toml files here.
//
//go:embed */*.toml
var Library embed.FS

// LibraryNames returns the names of the embedded scenarios, sorted, in the
// form LoadLibrary and the CLI accept ("reproduction/gossip_flap").
func LibraryNames() []string {
	var names []string
	// WalkDir over an embed.FS visits in lexical order and cannot fail.
	_ = fs.WalkDir(Library, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".toml") {
			names = append(names, strings.TrimSuffix(p, ".toml"))
		}
		return nil
	})
	slices.Sort(names)
	return names
}

// LoadLibrary parses the embedded scenario name ("smoke/three_mesh" or
// "smoke/three_mesh.toml"). Its extends resolve inside the library. The
// scenario's Path is the embedded file name ("smoke/three_mesh.toml").
func LoadLibrary(name string, reg *hosts.Registry) (*Scenario, error) {
	file := libraryFile(name)
	data, err := Library.ReadFile(file)
	if err != nil {
		if lib := kindLibrary(file, reg); lib != nil {
			read := func(p string) ([]byte, error) { return fs.ReadFile(lib, p) }
			if data, err := read(file); err == nil {
				return Parse(file, data, reg, read)
			}
		}
		return nil, Errors{{File: file, Msg: "no embedded scenario of that name"}}
	}
	return Parse(file, data, reg, Library.ReadFile)
}

// kindLibrary is the library of the registered kind that holds file
// (hosts.Kind.Library: "raft/leader_isolation.toml"), nil when none
// does. A kind's scenarios join the core's under their own names.
func kindLibrary(file string, reg *hosts.Registry) fs.FS {
	if reg == nil {
		return nil
	}
	for _, k := range reg.Kinds() {
		if k.Library == nil {
			continue
		}
		if _, err := fs.Stat(k.Library, file); err == nil {
			return k.Library
		}
	}
	return nil
}

func libraryFile(name string) string {
	if strings.HasSuffix(name, ".toml") {
		return name
	}
	return name + ".toml"
}

func inLibrary(name string) bool {
	_, err := fs.Stat(Library, libraryFile(name))
	return err == nil
}
