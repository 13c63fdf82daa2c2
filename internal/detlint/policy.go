package detlint

// DeterministicPackages are the package patterns the determinism contract
// (spec §7) covers; TestRepository runs Analyzer over all of them.
//
// NB: a new deterministic package goes here, or it is not checked. Packages
// under these patterns with a path element named "tui" or "cmd" are skipped:
// they talk to the user and the host by design. Test files are not checked.
var DeterministicPackages = []string{
	"github.com/detsim/detsim/engine/...",
	"github.com/detsim/detsim/rng/...",
	"github.com/detsim/detsim/network/...",
	"github.com/detsim/detsim/hosts/...",
	"github.com/detsim/detsim/bundle/...",
	"github.com/detsim/detsim/scenarios/...",
	"github.com/detsim/detsim/batch/...",
	"github.com/detsim/detsim/property/...",
	"github.com/detsim/detsim/shrink/...",
	"github.com/detsim/detsim/internal/vtime",
	"github.com/detsim/detsim/internal/checked",
}

// Exemptions is every package-wide relaxation of a rule. Each row is a
// deliberate hole in the contract (spec §15): keep it short, exact (no
// sub-packages) and justified.
var Exemptions = []Exemption{
	{
		Package: "github.com/detsim/detsim/bundle",
		Rules:   []string{ruleFileRead},
		Why:     "the bundle writer, reader and verifier exist to do file I/O on the bundle directory",
	},
	{
		Package: "github.com/detsim/detsim/scenarios",
		Rules:   []string{ruleFileRead},
		Why:     "the scenario loader reads the scenario file the user named",
	},
}
