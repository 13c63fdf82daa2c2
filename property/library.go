package property

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/scenarios"
)

// libraries are where properties are named from: each of reg's kinds'
// properties/ directory (hosts.Librarian), in the order
// scenarios.Libraries gives them. The core ships no property: each one
// belongs to the kind whose scenarios it draws (docs/architecture.md,
// "The libraries").
func libraries(reg *hosts.Registry) []fs.FS {
	libs := scenarios.Libraries(reg)
	out := make([]fs.FS, 0, len(libs))
	for _, lib := range libs[1:] {
		if sub, err := fs.Sub(lib, "properties"); err == nil {
			out = append(out, sub)
		}
	}
	return out
}

// LibraryNames returns the names of the properties of reg's kinds,
// sorted ("agent_faults", "gossip_flap", …).
func LibraryNames(reg *hosts.Registry) []string {
	var names []string
	for _, lib := range libraries(reg) {
		entries, _ := fs.ReadDir(lib, ".") // a kind without properties has none
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".toml"); ok && !e.IsDir() {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// LoadLibrary parses the library property name ("gossip_flap", with or
// without ".toml"), one of reg's kinds'. Its base is a library scenario.
func LoadLibrary(name string, reg *hosts.Registry) (*Property, error) {
	name = strings.TrimSuffix(name, ".toml")
	data, err := readLibrary(name, reg)
	if err != nil {
		return nil, scenarios.Errors{{File: name, Msg: "no embedded property of that name (embedded: " +
			strings.Join(LibraryNames(reg), ", ") + ")"}}
	}
	return Parse(name+".toml", data, reg, func(ref string) (*scenarios.Scenario, error) {
		return scenarios.LoadLibrary(ref, reg)
	})
}

// readLibrary reads the library property name (no ".toml") from the first
// of reg's kinds that ships it.
func readLibrary(name string, reg *hosts.Registry) ([]byte, error) {
	if strings.Contains(name, "/") {
		return nil, fs.ErrNotExist
	}
	for _, lib := range libraries(reg) {
		if data, err := fs.ReadFile(lib, name+".toml"); err == nil {
			return data, nil
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
