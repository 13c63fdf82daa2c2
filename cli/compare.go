package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/calibrate"
	"github.com/detsim/detsim/schemadiff"
)

const calibrateUsage = `usage: detsim calibrate SCENARIO PROD_BUNDLE [--seeds K] [--tolerances FILE] [--json] [--allow-sim-prod]
       detsim calibrate --sensitivity [--table FILE] [--pairs DIR] [--corpus DIR] [--seeds K] [-v]

Runs the simulator on SCENARIO for K seeds and compares every spec §11.3
metric (and issue 20's: round trips, probe timeouts, suspicions, a
kill's detection, sizes on the wire) with the production bundle
PROD_BUNDLE, each by the rule its tolerances file declares (the shipped
kinds/swim/calibrate/tolerances.toml by default; docs/calibration.md). Prints one
table: metric, sim median and spread, prod, tolerance, pass.
PROD_BUNDLE must be a testbed or live recording: a simulated bundle as
production is the circularity calibration exists to avoid, and is
refused unless --allow-sim-prod says it is meant (a sim-vs-sim check).

--sensitivity proves calibration can fail: it applies every
perturbation of the table (the shipped kinds/swim/calibrate/sensitivity.toml by
default) to every testbed pair — each DIR/NAME.toml of --pairs
(scenarios/calibration) whose --corpus (testdata/calibration) bundle
NAME is a testbed recording — and prints, per perturbation, the rows
that failed perturbed and not unperturbed (the first 6 of each pair's,
then how many more; -v lists every one). It fails when an unperturbed
pair fails other rows than NAME.known_failures lists, when a
perturbation not listed as a blind spot is caught by nothing, or when a
listed blind spot is caught.

With K ≥ 19 seeds (--seeds 20) the verdict is the recording judged as a
whole: it fails only if it fails more rows than the simulator's own runs
do when each is judged the same way, which a right model's recording
does with probability at most 0.05; the rows out of tolerance are then a
diagnosis. With fewer seeds that rule cannot alarm and the verdict is
the rows (docs/calibration.md, "False alarms").

Exit: 0 the verdict passes (with --sensitivity: the suite holds), 1 it
fails (it does not), 2 invalid input (a bundle whose peers differ from
the scenario's, a simulated production bundle, a malformed tolerances
or perturbation file), 3 internal error.
`

func cmdCalibrate(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	seeds := fs.Int("seeds", 10, "simulator seeds to run (K)")
	first := fs.Uint64("first-seed", 0, "the first simulator seed (default: the scenario's seed)")
	tolPath := fs.String("tolerances", "", "tolerances file (default: the shipped kinds/swim/calibrate/tolerances.toml)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	allowSim := fs.Bool("allow-sim-prod", false, "accept a simulated bundle as production (a sim-vs-sim check)")
	sens := fs.Bool("sensitivity", false, "run the sensitivity suite over the testbed corpus")
	table := fs.String("table", "", "with --sensitivity: the perturbation table (default: the shipped kinds/swim/calibrate/sensitivity.toml)")
	pairsDir := fs.String("pairs", "scenarios/calibration", "with --sensitivity: the calibration scenarios")
	corpusDir := fs.String("corpus", "testdata/calibration", "with --sensitivity: the bundles they pair with")
	verbose := fs.Bool("v", false, "with --sensitivity: list every row that caught a perturbation, not the first 6 of each pair's")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if *seeds <= 0 {
		return usageErrIn(stderr, "calibrate", "--seeds %d: want a positive number", *seeds)
	}
	opts := calibrate.Options{Seeds: *seeds, FirstSeed: *first, Registry: reg, AllowSimProd: *allowSim}
	if *tolPath != "" {
		if opts.Tolerances, err = calibrate.LoadTolerances(*tolPath); err != nil {
			fmt.Fprintf(stderr, "detsim: calibrate: %v\n", err)
			return exitUsage
		}
	}
	if *sens {
		if len(pos) != 0 {
			return usageErrIn(stderr, "calibrate", "--sensitivity takes no SCENARIO or bundle: it runs the corpus (--pairs, --corpus)")
		}
		return runSensitivity(*table, *pairsDir, *corpusDir, opts, *verbose, stdout, stderr)
	}
	if len(pos) != 2 {
		return usageErrIn(stderr, "calibrate", "needs SCENARIO and PROD_BUNDLE, got %d arguments", len(pos))
	}
	sc, code := loadScenario(pos[0], reg, stderr)
	if code != exitOK {
		return code
	}
	rep, err := calibrate.Run(sc, pos[1], opts)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: calibrate: %v\n", err)
		if calibrate.IsInputError(err) {
			return exitUsage
		}
		return exitInternal
	}
	// The report and the exit code, as schemadiff's below, alike in
	// shape: each report says failed in its own terms.
	if !writeReport(rep, *asJSON, "calibrate", stdout, stderr) {
		return exitInternal
	}
	if rep.Alarmed() {
		return exitFailed
	}
	return exitOK
}

const schemadiffUsage = `usage: detsim schemadiff A B [--prod a|b] [--also DIR]... [--known-gaps FILE] [--json]

Compares two bundles' event streams at the schema level (spec §9.2):
the event kinds each emits and, per kind, the field names and JSON types,
streaming in bounded memory. Kinds production emits that known_gaps.md
lists as not modelled are ignored; the simulator emitting a kind
production lacks, or lacking one production emits, is a failure. Which
bundle is production is read from the manifests (a live bundle is), or
given with --prod. --also names another production run of the same
implementation: a kind or field only the simulator has that this
production run happened not to emit (a quiet run has no refutation) is
not held against the simulator when that run shows it. What a production bundle declares it cannot observe (a
testbed bundle's testbed.unobserved) is ignored, with its reason.
Exit: 0 no difference that counts, 1 a difference, 2 an unreadable or
malformed bundle (a bad line, a file that is not a regular file, a link
out of the bundle, more than 4,096 event kinds).
`

func cmdSchemadiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schemadiff", flag.ContinueOnError)
	prod := fs.String("prod", "", "which bundle is production: a or b (default: from the manifests)")
	gaps := fs.String("known-gaps", "", "known_gaps.md to read unmodelled kinds from (default: the sim bundle's own)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	var also dirList
	fs.Var(&also, "also", "another production run of the same implementation: what only the sim has is excused if that run shows it (repeatable)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 2 {
		return usageErrIn(stderr, "schemadiff", "needs two bundles, got %d", len(pos))
	}
	opts := schemadiff.Options{KnownGaps: *gaps, AlsoProd: also}
	switch *prod {
	case "":
	case "a", "A":
		opts.Prod = schemadiff.A
	case "b", "B":
		opts.Prod = schemadiff.B
	default:
		return usageErrIn(stderr, "schemadiff", "--prod %q: want a or b", *prod)
	}
	rep, err := schemadiff.Compare(pos[0], pos[1], opts)
	if err != nil {
		// A bundle schemadiff cannot read, a malformed line included, is
		// invalid input: exit 1 is kept for "the schemas differ".
		fmt.Fprintf(stderr, "detsim: schemadiff: %v\n", err)
		return exitUsage
	}
	if !writeReport(rep, *asJSON, "schemadiff", stdout, stderr) {
		return exitInternal
	}
	if rep.Failed() {
		return exitFailed
	}
	return exitOK
}

// report is a comparison's report: a table, or JSON.
type report interface {
	Write(io.Writer) error
	WriteJSON(io.Writer) error
}

// writeReport prints rep, as JSON with asJSON; false when it could not
// (the command's exit 3, said under what).
func writeReport(rep report, asJSON bool, what string, stdout, stderr io.Writer) bool {
	var err error
	if asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.Write(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: %s: %v\n", what, err)
		return false
	}
	return true
}

// dirList is a repeatable flag of paths.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ",") }
func (d *dirList) Set(s string) error {
	if s == "" {
		return errors.New("empty path")
	}
	*d = append(*d, s)
	return nil
}
