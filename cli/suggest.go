package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/suggest"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// suggestCommand returns the subcommand arg was probably meant to be
// (within two edits: "swep", "chekc"), or "". An argument that names a
// file or an embedded scenario is a run's SCENARIO, never a typo.
func suggestCommand(arg string, reg *hosts.Registry) string {
	if strings.HasPrefix(arg, "-") || exists(arg) || isLibraryScenario(arg, reg) {
		return ""
	}
	return suggest.Closest(arg, subcommandNames(), 2)
}

// resolveScenario is scenarios.Resolve, and for a name that is neither a
// file nor an embedded scenario it says which embedded one is nearest.
func resolveScenario(arg string, reg *hosts.Registry) (*scenarios.Scenario, error) {
	sc, err := scenarios.Resolve(arg, reg)
	if err == nil || exists(arg) || isLibraryScenario(arg, reg) {
		return sc, err
	}
	if s := closestName(arg, scenarios.LibraryNames(reg)); s != "" {
		return nil, scenarios.Errors{{File: arg, Msg: fmt.Sprintf(
			"no such file, and no embedded scenario of that name: did you mean %q? ('detsim list' shows them all)", s)}}
	}
	return nil, err
}

// resolveProperty is property.Resolve with resolveScenario's suggestion.
func resolveProperty(arg string, reg *hosts.Registry) (*property.Property, error) {
	p, err := property.Resolve(arg, reg)
	name := strings.TrimSuffix(arg, ".toml")
	if err == nil || exists(arg) || slices.Contains(property.LibraryNames(reg), name) {
		return p, err
	}
	if s := closestName(arg, property.LibraryNames(reg)); s != "" {
		return nil, scenarios.Errors{{File: arg, Msg: fmt.Sprintf(
			"no such file, and no embedded property of that name: did you mean %q? (embedded: %s)", s, strings.Join(property.LibraryNames(reg), ", "))}}
	}
	return nil, err
}

// closestName is the library name nearest arg: within two edits of the
// whole name ("reproduction/gosip_flap"), or, for an arg with no
// directory, of the part after the directory ("gossip_flap" →
// "reproduction/gossip_flap").
func closestName(arg string, names []string) string {
	arg = strings.TrimSuffix(arg, ".toml")
	best, bestDist := "", 3
	for _, n := range names {
		d := suggest.Distance(arg, n)
		if _, base, ok := strings.Cut(n, "/"); ok && !strings.Contains(arg, "/") {
			d = min(d, suggest.Distance(arg, base))
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isLibraryScenario(name string, reg *hosts.Registry) bool {
	return slices.Contains(scenarios.LibraryNames(reg), strings.TrimSuffix(name, ".toml"))
}
