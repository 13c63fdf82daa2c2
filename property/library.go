package property

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/scenarios"
)

// Library is the property library embedded in the binary: every .toml
// file in library/. Their bases are embedded scenario names.
//
//go:embed library/*.toml
var Library embed.FS

// LibraryNames returns the names of the embedded properties, sorted
// ("agent_faults", "gossip_flap", "gossip_flap_wan", …).
func LibraryNames() []string {
	entries, _ := fs.ReadDir(Library, "library") // embedded: cannot fail
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".toml"); ok && !e.IsDir() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// LoadLibrary parses the embedded property name ("gossip_flap", with or
// without ".toml"). Its base is an embedded scenario.
func LoadLibrary(name string, reg *hosts.Registry) (*Property, error) {
	name = strings.TrimSuffix(name, ".toml")
	data, err := Library.ReadFile(path.Join("library", name+".toml"))
	if err != nil {
		data, err = kindProperty(name, reg) // a kind's own (hosts.Kind.Library)
	}
	if err != nil || strings.Contains(name, "/") {
		return nil, scenarios.Errors{{File: name, Msg: "no embedded property of that name (embedded: " +
			strings.Join(LibraryNames(), ", ") + ")"}}
	}
	return Parse(name+".toml", data, reg, func(ref string) (*scenarios.Scenario, error) {
		return scenarios.LoadLibrary(ref, reg)
	})
}

// kindProperty reads properties/<name>.toml from the library of a
// registered kind.
func kindProperty(name string, reg *hosts.Registry) ([]byte, error) {
	for _, k := range reg.Kinds() {
		if k.Library != nil {
			if data, err := fs.ReadFile(k.Library, path.Join("properties", name+".toml")); err == nil {
				return data, nil
			}
		}
	}
	return nil, fs.ErrNotExist
}

// Load parses the property file at file. Its base is a scenario file
// relative to the property file's directory if one exists, else an
// embedded scenario name.
func Load(file string, reg *hosts.Registry) (*Property, error) {
	data, err := readFile(file)
	if err != nil {
		return nil, scenarios.Errors{{File: file, Msg: "cannot read: " + err.Error()}}
	}
	return Parse(file, data, reg, func(ref string) (*scenarios.Scenario, error) {
		local := ref
		if !filepath.IsAbs(local) {
			local = filepath.Join(filepath.Dir(file), filepath.FromSlash(ref))
		}
		if info, err := os.Stat(local); err == nil && !info.IsDir() { //detlint:allow fileread resolving the user's base argument (a file beside the property, else an embedded name), as scenarios.Resolve does; nothing a run decides reads it
			return scenarios.Load(local, reg)
		}
		return scenarios.Resolve(ref, reg)
	})
}

// Resolve loads arg as a property file if such a file exists, else as the
// name of an embedded property — the rule scenarios.Resolve follows.
func Resolve(arg string, reg *hosts.Registry) (*Property, error) {
	if info, err := os.Stat(arg); err == nil && !info.IsDir() { //detlint:allow fileread resolving the user's argument (a file path first, else an embedded name), as scenarios.Resolve does; nothing a run decides reads it
		return Load(arg, reg)
	}
	return LoadLibrary(arg, reg)
}

// readFile reads the property file the user named through safefile, as
// the scenario loader reads scenarios: a FIFO, device or directory is
// refused before a byte is read, and size is bounded like a scenario's.
func readFile(file string) ([]byte, error) {
	f, err := safefile.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.Read(f, "it", scenarios.MaxFileBytes)
}
