package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/detsim/detsim/calibrate"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/schemadiff"
)

const calibrateUsage = `usage: detsim calibrate SCENARIO PROD_BUNDLE [--seeds K] [--tolerances FILE] [--json]

Runs the simulator on SCENARIO for K seeds and compares every spec §11.3
metric with the production bundle PROD_BUNDLE (a live run, or any bundle
in detsim's schema), each by the rule its tolerances file declares (the
shipped calibrate/tolerances.toml by default; docs/calibration.md).
Prints one table: metric, sim median and spread, prod, tolerance, pass.
Exit: 0 every judged metric within tolerance, 1 one is not, 2 invalid
input (a bundle whose peers differ from the scenario's, a malformed
tolerances file), 3 internal error.
`

func cmdCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	seeds := fs.Int("seeds", 10, "simulator seeds to run (K)")
	first := fs.Uint64("first-seed", 0, "the first simulator seed (default: the scenario's seed)")
	tolPath := fs.String("tolerances", "", "tolerances file (default: the shipped calibrate/tolerances.toml)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 2 {
		return usageErrIn(stderr, "calibrate", "needs SCENARIO and PROD_BUNDLE, got %d arguments", len(pos))
	}
	if *seeds <= 0 {
		return usageErrIn(stderr, "calibrate", "--seeds %d: want a positive number", *seeds)
	}
	reg := builtin.Registry()
	sc, err := resolveScenario(pos[0], reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	opts := calibrate.Options{Seeds: *seeds, FirstSeed: *first, Registry: reg}
	if *tolPath != "" {
		if opts.Tolerances, err = calibrate.LoadTolerances(*tolPath); err != nil {
			fmt.Fprintf(stderr, "detsim: calibrate: %v\n", err)
			return exitUsage
		}
	}
	rep, err := calibrate.Run(sc, pos[1], opts)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: calibrate: %v\n", err)
		if calibrate.IsInputError(err) {
			return exitUsage
		}
		return exitInternal
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.Write(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: calibrate: %v\n", err)
		return exitInternal
	}
	if rep.Failed() {
		return exitFailed
	}
	return exitOK
}

const schemadiffUsage = `usage: detsim schemadiff A B [--prod a|b] [--known-gaps FILE] [--json]

Compares two bundles' event streams at the schema level (spec §9.2):
the event kinds each emits and, per kind, the field names and JSON types,
streaming in bounded memory. Kinds production emits that known_gaps.md
lists as not modelled are ignored; the simulator emitting a kind
production lacks, or lacking one production emits, is a failure. Which
bundle is production is read from the manifests (a live bundle is), or
given with --prod. Exit: 0 no difference that counts, 1 a difference,
2 an unreadable or malformed bundle (a bad line, a file that is not a
regular file, a link out of the bundle, more than 4,096 event kinds).
`

func cmdSchemadiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schemadiff", flag.ContinueOnError)
	prod := fs.String("prod", "", "which bundle is production: a or b (default: from the manifests)")
	gaps := fs.String("known-gaps", "", "known_gaps.md to read unmodelled kinds from (default: the sim bundle's own)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 2 {
		return usageErrIn(stderr, "schemadiff", "needs two bundles, got %d", len(pos))
	}
	opts := schemadiff.Options{KnownGaps: *gaps}
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
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.Write(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: schemadiff: %v\n", err)
		return exitInternal
	}
	if rep.Failed() {
		return exitFailed
	}
	return exitOK
}
