package cli

import (
	"fmt"
	"os"
	"slices"
	"strconv"
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
	if s := closestNames(arg, scenarios.LibraryNames(reg)); len(s) > 0 {
		return nil, scenarios.Errors{{File: arg, Msg: fmt.Sprintf(
			"no such file, and no embedded scenario of that name: did you mean %q?%s ('detsim list' shows them all)", s[0], alsoNames(s[1:]))}}
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
	if s := closestNames(arg, property.LibraryNames(reg)); len(s) > 0 {
		return nil, scenarios.Errors{{File: arg, Msg: fmt.Sprintf(
			"no such file, and no embedded property of that name: did you mean %q? (embedded: %s)", s[0], strings.Join(property.LibraryNames(reg), ", "))}}
	}
	return nil, err
}

// closestNames are the library names nearest arg, best first: within
// two edits of the whole name ("reproduction/gosip_flap"), or, for an
// arg with no directory, of the part after the directory ("gossip_flap"
// → "reproduction/gossip_flap"). Names equally near come in the order
// of preferredDirs, then as listed: "gossip_flap" is as near to
// calibration/ and testbed/ as to reproduction/, and the reproduction is
// the one a run means (issue 33: the suggestion was calibration/'s, the
// first in the list).
func closestNames(arg string, names []string) []string {
	arg = strings.TrimSuffix(arg, ".toml")
	var best []string
	bestDist := 3
	for _, n := range names {
		d := suggest.Distance(arg, n)
		if _, base, ok := strings.Cut(n, "/"); ok && !strings.Contains(arg, "/") {
			d = min(d, suggest.Distance(arg, base))
		}
		switch {
		case d < bestDist:
			best, bestDist = []string{n}, d
		case d == bestDist:
			best = append(best, n)
		}
	}
	rank := func(n string) int {
		dir, _, _ := strings.Cut(n, "/")
		if i := slices.Index(preferredDirs, dir); i >= 0 {
			return i
		}
		return len(preferredDirs)
	}
	slices.SortStableFunc(best, func(a, b string) int { return rank(a) - rank(b) })
	return best
}

// preferredDirs are the library directories whose scenarios a plain run
// is for, first among equally near suggestions: the default scenario's
// (tui.DefaultScenario), then the small ones to start from.
var preferredDirs = []string{"reproduction", "reference", "smoke"}

// alsoNames is " (also "a", "b")" for names equally near as the one
// suggested, "" for none.
func alsoNames(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return " (also " + strings.Join(q, ", ") + ")"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isLibraryScenario(name string, reg *hosts.Registry) bool {
	return slices.Contains(scenarios.LibraryNames(reg), strings.TrimSuffix(name, ".toml"))
}
