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
		return nil, Errors{{File: file, Msg: "no embedded scenario of that name"}}
	}
	return Parse(file, data, reg, Library.ReadFile)
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
