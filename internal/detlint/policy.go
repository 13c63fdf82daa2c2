package detlint

// DeterministicPackages are the package patterns the determinism contract
// (spec §7) covers; TestRepository runs Analyzer over all of them.
//
// TestFence_CoversImportGraph keeps this list closed under imports: every
// package of this module that engine, bundle/verdict, batch or a package
// listed here imports, directly or not, must be listed too, or be in
// OutsideFence with a reason. Packages under these patterns with a path
// element named "tui" or "cmd" are skipped: they talk to the user and the
// host by design. Test files are not checked.
var DeterministicPackages = []string{
	"github.com/detsim/detsim/engine/...",
	"github.com/detsim/detsim/rng/...",
	"github.com/detsim/detsim/network/...",
	"github.com/detsim/detsim/hosts/...",
	// The kinds' simulated halves; their real-time tools (live, testbed,
	// calibrate, daemoncli, bench, edge, providerserve) are outside.
	"github.com/detsim/detsim/kinds/echo",
	"github.com/detsim/detsim/kinds/swim/swim",
	"github.com/detsim/detsim/kinds/swim/swimhost",
	"github.com/detsim/detsim/kinds/swim/swimcheck",
	"github.com/detsim/detsim/kinds/swim/swimcfg",
	"github.com/detsim/detsim/kinds/raft/rafthost/...",
	"github.com/detsim/detsim/kinds/agent/agent",
	"github.com/detsim/detsim/kinds/agent/agentcheck",
	"github.com/detsim/detsim/kinds/agent/llmwire",
	"github.com/detsim/detsim/kinds/agent/provider",
	"github.com/detsim/detsim/kinds/agent/tool",
	"github.com/detsim/detsim/bundle/...",
	"github.com/detsim/detsim/scenarios/...",
	"github.com/detsim/detsim/batch/...",
	"github.com/detsim/detsim/debugger/...",
	"github.com/detsim/detsim/property/...",
	"github.com/detsim/detsim/shrink/...",
	"github.com/detsim/detsim/sweep/...",
	"github.com/detsim/detsim/internal/jsonw",
	"github.com/detsim/detsim/internal/tomlguard",
	"github.com/detsim/detsim/internal/safefile",
	"github.com/detsim/detsim/internal/outfile",
	"github.com/detsim/detsim/internal/vtime",
	"github.com/detsim/detsim/internal/natsort",
	"github.com/detsim/detsim/internal/checked",
	"github.com/detsim/detsim/internal/suggest",
	"github.com/detsim/detsim/internal/jsonmember",
	"github.com/detsim/detsim/internal/jsonscan",
	"github.com/detsim/detsim/internal/numfmt",
	"github.com/detsim/detsim/causal",
}

// OutsideFence is every package of this module that a deterministic
// package imports but that is deliberately not held to the contract. Each
// row is a hole in the fence (spec §15): whatever it does must never reach
// a decision, only the host around the run.
var OutsideFence = []Outside{
	{
		Package: "github.com/detsim/detsim/internal/scratch",
		Why: "temporary directories and output locks for the bundle writer: it lists directories for stale " +
			"leftovers, takes flocks, and empties a registry map from a signal handler; a run never " +
			"reads what it finds, only whether the output path may be written",
	},
	{
		Package: "github.com/detsim/detsim/internal/term",
		Why: "the sweep's progress line on stderr escapes the property's name and draws its own sequences " +
			"through it; it asks the terminal whether it is one and writes, and nothing a run decides reads it back",
	},
}

// Outside is one package deliberately left outside DeterministicPackages.
type Outside struct {
	Package string
	Why     string
}

// Exemptions is every relaxation of a rule for a package or some of its
// files. Each row is a deliberate hole in the contract (spec §15): keep it
// short, exact (no sub-packages) and justified.
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
	{
		Package: "github.com/detsim/detsim/internal/safefile",
		Rules:   []string{ruleFileRead},
		Why: "its job is opening and reading the files detsim is handed (scenarios, properties, manifests), " +
			"refusing FIFOs and devices first; its callers are the loaders, which are exempt or allowed themselves",
	},
	{
		Package: "github.com/detsim/detsim/internal/outfile",
		Rules:   []string{ruleFileRead},
		Why: "its job is checking and replacing result files (a shrunk scenario, a pinned seed) without " +
			"clobbering: it must Stat and Lstat the path; it writes after a run and decides nothing in one",
	},
	{
		// The one exception to the fence that a run's results depend on
		// (docs/decisions.md, "etcd raft's election draws").
		Package: "github.com/detsim/detsim/kinds/raft/rafthost",
		Files:   []string{"entropy.go"},
		Rules:   []string{ruleRand},
		Why: "etcd raft, wrapped unchanged, draws its randomized election timeouts from crypto/rand.Reader; " +
			"this file replaces that Reader once, serving the draws of the raft host being stepped (under a lock " +
			"held across each raft call) from the host's own substream, and the operating system's entropy to " +
			"every other reader, so raft runs are reproducible and keys elsewhere stay secure",
	},
	{
		Package: "github.com/detsim/detsim/sweep",
		Files:   []string{"progress.go"},
		Rules:   []string{ruleTime, ruleFloat},
		Why: "the progress display on stderr: it rate-limits redraws by the wall clock and draws a bar " +
			"from a float fraction; it only reads counts the sweep reports, and the report, pins and " +
			"verdicts never read it back",
	},
}
