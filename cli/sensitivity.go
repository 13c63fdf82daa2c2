package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/kinds/swim/calibrate"
)

// runSensitivity is `detsim calibrate --sensitivity`.
func runSensitivity(tablePath, pairsDir, corpusDir string, opts calibrate.Options, every bool, stdout, stderr io.Writer) int {
	table := calibrate.ShippedSensitivity()
	if tablePath != "" {
		var err error
		if table, err = calibrate.LoadSensitivity(tablePath); err != nil {
			fmt.Fprintf(stderr, "detsim: calibrate --sensitivity: %v\n", err)
			return exitUsage
		}
	}
	pairs, err := testbedPairs(pairsDir, corpusDir, opts)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: calibrate --sensitivity: %v\n", err)
		return exitUsage
	}
	if len(pairs) == 0 {
		fmt.Fprintf(stderr, "detsim: calibrate --sensitivity: no testbed pair in %s with %s\n", pairsDir, corpusDir)
		return exitUsage
	}
	var progress func(string)
	if isTerminal(stderr) {
		progress = func(step string) { fmt.Fprintf(stderr, "\r\x1b[2Ksensitivity: %s", step) }
	}
	start := time.Now()
	rep, err := calibrate.Sensitivity(pairs, table, opts, progress)
	if progress != nil {
		fmt.Fprint(stderr, "\r\x1b[2K")
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: calibrate --sensitivity: %v\n", err)
		if calibrate.IsInputError(err) {
			return exitUsage
		}
		return exitInternal
	}
	if err := rep.Write(stdout, every); err != nil {
		fmt.Fprintf(stderr, "detsim: calibrate --sensitivity: %v\n", err)
		return exitInternal
	}
	fmt.Fprintf(stdout, "wall      %s\n", time.Since(start).Round(time.Millisecond))
	if rep.Failed() {
		return exitFailed
	}
	return exitOK
}

// testbedPairs finds the corpus's testbed pairs: each pairsDir/NAME.toml
// whose corpusDir/NAME bundle is a testbed recording, with the rows
// corpusDir/NAME.known_failures lists. A pair whose bundle's manifest
// cannot be read is an error naming it: skipped, it would leave the
// suite proving less than it says, silently.
func testbedPairs(pairsDir, corpusDir string, opts calibrate.Options) ([]calibrate.Pair, error) {
	paths, err := filepath.Glob(filepath.Join(pairsDir, "*.toml"))
	if err != nil {
		return nil, err
	}
	var pairs []calibrate.Pair
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".toml")
		prod := filepath.Join(corpusDir, name)
		m, err := bundle.ReadManifest(prod)
		if err != nil {
			return nil, fmt.Errorf("pair %s (%s): its bundle: %w", name, path, err)
		}
		if m.Mode != bundle.ModeTestbed {
			continue
		}
		sc, err := resolveScenario(path, opts.Registry)
		if err != nil {
			return nil, err
		}
		known, err := knownFailures(prod + ".known_failures")
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, calibrate.Pair{Name: name, Scenario: sc, Prod: prod, Known: known})
	}
	return pairs, nil
}

// knownFailures reads a NAME.known_failures file: one metric a line
// (its first field), # starts a comment. A missing file lists none.
func knownFailures(path string) ([]string, error) {
	b, err := safefile.ReadFile(path, 1<<20)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out, nil
}
