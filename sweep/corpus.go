package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// DefaultCorpus is where a sweep of an expect = "pass" property pins its
// failing seeds unless told otherwise: the regression corpus, embedded
// with the scenario library and replayed by go test ./sweep.
const DefaultCorpus = "scenarios/regression"

// Pin is one scenario of a regression corpus: a failing seed, with what
// its run produced when it was pinned.
type Pin struct {
	Property string
	Seed     uint64
	Expected property.Expectation // the property's expectation
	Failing  []string             // the assertions that failed, in declaration order
	Digest   string
	// Scenario is the scenario's fully merged TOML (scenarios.TOML), with
	// no "# expect:" header; Verdicts is verdict.Marshal of its verdicts.
	Scenario []byte
	Verdicts []byte
}

// PinPath is where a corpus in dir keeps the property's seed:
// <dir>/<property>-<seed>.toml, its verdicts beside it in
// <property>-<seed>.verdicts.json.
func PinPath(dir, prop string, seed uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%d.toml", prop, seed))
}

// VerdictsPath is the verdicts file beside the pinned scenario at path.
func VerdictsPath(path string) string {
	return strings.TrimSuffix(path, ".toml") + ".verdicts.json"
}

func pinOf(p *property.Property, r *SeedResult) Pin {
	return Pin{
		Property: p.Name, Seed: r.Seed, Expected: p.Expect,
		Failing: r.Outcome.Failing(), Digest: r.Outcome.Digest,
		Scenario: bareTOML(r.Scenario), Verdicts: verdict.Marshal(r.Outcome.Verdicts),
	}
}

// bareTOML is sc's merged TOML without the "# expect:" header, which a
// pin writes itself.
func bareTOML(sc *scenarios.Scenario) []byte {
	c := *sc
	c.Expect = ""
	return c.TOML()
}

// CheckWritable creates dir if needed and makes sure a file can be
// written in it, so a sweep fails before its first seed rather than at
// its first failure.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("corpus %s: %w", dir, err)
	}
	if err := outfile.Check(filepath.Join(dir, "write-check"), false); err != nil {
		return fmt.Errorf("corpus %s is not writable: %w", dir, err)
	}
	return nil
}

// ErrPinConflict is wrapped by WritePin's error when the corpus already
// holds a different pin of the same seed.
var ErrPinConflict = errors.New("a different pin of this seed exists")

// WritePin writes the pin's scenario and verdicts into dir and returns
// the scenario's path. It never replaces a file it did not write in this
// call unless force is set: a pin of the same seed recording the same
// expectation, failing assertions and digest is left as it is (the seed
// is already pinned); one recording anything else is an error wrapping
// ErrPinConflict that says what differs; any other file at either path
// is refused.
//
// The verdicts file is written first and the scenario last, each through
// a temporary linked into place, so a pin is complete exactly when its
// .toml exists. A verdicts file with no .toml beside it is what a sweep
// killed between the two writes leaves: when it is a regular file
// holding byte for byte the verdicts this pin writes, it is that pin's
// first half, and WritePin finishes the pin around it (and removes the
// killed write's temporaries, named for the two paths and locked by no
// live process). A verdicts file holding anything else is not provably
// detsim's, and is refused like any other file.
func WritePin(dir string, p Pin, force bool) (string, error) {
	path := PinPath(dir, p.Property, p.Seed)
	if !force {
		same, err := samePin(path, p)
		if err != nil || same {
			return path, err
		}
	}
	vpath := VerdictsPath(path)
	// A verdicts file holding what this pin writes, where no complete
	// pin stands (samePin), is this pin's first half: finish it. If
	// something other than a pin is at the scenario path, Check refuses
	// it below before anything is written.
	half := !force && outfile.Holds(vpath, p.Verdicts)
	// Both paths are checked before either is written: a pin refused for
	// its scenario file must not leave its verdicts file behind, which
	// would then refuse every later pin of the seed.
	for _, target := range []string{vpath, path} {
		if target == vpath && half {
			_ = outfile.RemoveStale(vpath) // as Check would; a leftover is no reason to refuse
			continue
		}
		if err := outfile.Check(target, force); err != nil {
			return "", fmt.Errorf("pinning %s: %w", path, err)
		}
	}
	if !half {
		if err := outfile.Write(vpath, p.Verdicts, force); err != nil {
			return "", fmt.Errorf("pinning %s: %w", path, err)
		}
	}
	if err := outfile.Write(path, p.File(path), force); err != nil {
		if !force {
			// Another sweep may have pinned the seed meanwhile: then it is
			// pinned, and the verdicts file is that pin's.
			if same, serr := samePin(path, p); serr == nil && same {
				return path, nil
			}
			// Written by this call (without force nothing is replaced),
			// and the scenario it belongs to lost a race for its path.
			if v, rerr := safefile.ReadFile(vpath, scenarios.MaxFileBytes); !half && rerr == nil && bytes.Equal(v, p.Verdicts) {
				os.Remove(vpath)
			}
		}
		return "", fmt.Errorf("pinning %s: %w", path, err)
	}
	return path, nil
}

// samePin reports whether path already holds p: a pin of the same
// property and seed whose header records what p records and whose
// verdicts file holds p's verdicts. A different pin there is an
// ErrPinConflict; no file there is (false, nil), and a file that is not a
// pin is left for outfile.Write to refuse.
func samePin(path string, p Pin) (bool, error) {
	data, err := safefile.ReadFile(path, scenarios.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pinning %s: %w", path, err)
	}
	h, ok := ReadPinHeader(data)
	if !ok || h.Property != p.Property || h.Seed != p.Seed {
		return false, nil
	}
	var diffs []string
	if h.Expected != string(p.Expected) {
		diffs = append(diffs, fmt.Sprintf("expected %s, this run %s", h.Expected, p.Expected))
	}
	if strings.Join(h.Failing, ", ") != strings.Join(p.Failing, ", ") {
		diffs = append(diffs, fmt.Sprintf("failing [%s], this run [%s]", strings.Join(h.Failing, ", "), strings.Join(p.Failing, ", ")))
	}
	if h.Digest != p.Digest {
		diffs = append(diffs, fmt.Sprintf("digest %s, this run %s", h.Digest, p.Digest))
	}
	if len(diffs) == 0 {
		if v, err := safefile.ReadFile(VerdictsPath(path), scenarios.MaxFileBytes); err != nil || !bytes.Equal(v, p.Verdicts) {
			diffs = append(diffs, "its verdicts file differs from this run's verdicts")
		}
	}
	if len(diffs) > 0 {
		return false, fmt.Errorf("%s: %w: it records %s; not replaced (re-pin deliberately with --force)", path, ErrPinConflict, strings.Join(diffs, "; "))
	}
	return true, nil
}

// File renders the pinned scenario file: a header, then the scenario.
// The header's "# expect:" line makes the file a library scenario that
// `detsim check` holds to its verdict: fail-until-fix while an assertion
// fails, pass-now once a fix made it pass and it was re-pinned. The
// "key: value" lines are read back by ReadPinHeader.
func (p Pin) File(path string) []byte {
	var b bytes.Buffer
	expect := "pass-now"
	failing := "none"
	if len(p.Failing) > 0 {
		expect, failing = "fail-until-fix", strings.Join(p.Failing, ", ")
	}
	fmt.Fprintf(&b, "# expect: %s\n#\n", expect)
	fmt.Fprintf(&b, "# Pinned by detsim sweep (docs/sweeps.md): seed %d of the property\n", p.Seed)
	fmt.Fprintf(&b, "# %s (expect = %q) failed when it was found. Below is that\n", p.Property, p.Expected)
	b.WriteString("# seed's scenario, fully expanded: it alone reproduces the run.\n")
	b.WriteString("# go test ./sweep and detsim check replay it and compare its digest\n")
	fmt.Fprintf(&b, "# and its verdicts (%s) byte for byte.\n#\n", filepath.Base(VerdictsPath(path)))
	fmt.Fprintf(&b, "# property: %s\n", p.Property)
	fmt.Fprintf(&b, "# seed: %d\n", p.Seed)
	fmt.Fprintf(&b, "# expected: %s\n", p.Expected)
	fmt.Fprintf(&b, "# failing: %s\n", failing)
	fmt.Fprintf(&b, "# digest: %s\n", p.Digest)
	fmt.Fprintf(&b, "# replay: detsim --batch %s\n\n", filepath.ToSlash(path))
	b.Write(p.Scenario)
	return b.Bytes()
}

// PinHeader is what a pinned file's header records.
type PinHeader struct {
	Property string
	Seed     uint64
	Expected string
	Failing  []string
	Digest   string
}

// ReadPinHeader reads the "key: value" lines of a scenario file's leading
// comment block. ok is false when the file is not a pin (no digest line).
func ReadPinHeader(data []byte) (h PinHeader, ok bool) {
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		comment, isComment := strings.CutPrefix(line, "#")
		if !isComment {
			break
		}
		key, value, found := strings.Cut(strings.TrimSpace(comment), ":")
		if !found {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "property":
			h.Property = value
		case "seed":
			h.Seed, _ = strconv.ParseUint(value, 10, 64)
		case "expected":
			h.Expected = value
		case "failing":
			if value != "none" && value != "" {
				h.Failing = strings.Split(value, ", ")
			}
		case "digest":
			h.Digest, ok = value, value != ""
		}
	}
	return h, ok
}

// Replay is a pinned scenario run again.
type Replay struct {
	Path    string
	Header  PinHeader
	Outcome *Outcome
	// Mismatches says how the run differs from the pin; empty when it
	// replayed byte for byte.
	Mismatches []string
}

// ReplayPin loads the pinned scenario at path, runs it and compares its
// digest with the header's and its verdicts with the verdicts file beside
// it. A missing verdicts file is a mismatch. The error is for a file that
// cannot be loaded or run.
func ReplayPin(ctx context.Context, path string, reg *hosts.Registry) (*Replay, error) {
	data, err := safefile.ReadFile(path, scenarios.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	h, ok := ReadPinHeader(data)
	if !ok {
		return nil, fmt.Errorf("%s: not a pinned scenario (no \"# digest:\" header line)", path)
	}
	sc, err := scenarios.Load(path, reg)
	if err != nil {
		return nil, err
	}
	out, err := RunScenario(ctx, sc, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &Replay{Path: path, Header: h, Outcome: out}
	r.Mismatches = comparePin(h, out, path)
	return r, nil
}

// comparePin lists how out differs from the pin at path.
func comparePin(h PinHeader, out *Outcome, path string) []string {
	var diffs []string
	if out.Digest != h.Digest {
		diffs = append(diffs, fmt.Sprintf("digest %s, pinned %s", out.Digest, h.Digest))
	}
	vpath := VerdictsPath(path)
	want, err := safefile.ReadFile(vpath, scenarios.MaxFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		diffs = append(diffs, fmt.Sprintf("no %s beside the pin", filepath.Base(vpath)))
	case err != nil:
		diffs = append(diffs, err.Error())
	default:
		if got := verdict.Marshal(out.Verdicts); !bytes.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("verdicts differ from %s at line %d", filepath.Base(vpath), firstDiffLine(got, want)))
		}
	}
	return diffs
}

func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}

// Repin runs the pinned scenario at path again and rewrites its header
// and verdicts file from the new run, keeping the scenario itself. It is
// how an intended change (a fix, a new event) is recorded; the commit
// that does it says why (docs/golden-log.md).
func Repin(ctx context.Context, path string, reg *hosts.Registry) (*Replay, error) {
	r, err := ReplayPin(ctx, path, reg)
	if err != nil {
		return nil, err
	}
	sc, err := scenarios.Load(path, reg)
	if err != nil {
		return nil, err
	}
	p := Pin{
		Property: r.Header.Property, Seed: r.Header.Seed, Expected: property.Expectation(r.Header.Expected),
		Failing: r.Outcome.Failing(), Digest: r.Outcome.Digest,
		Scenario: bareTOML(sc), Verdicts: verdict.Marshal(r.Outcome.Verdicts),
	}
	// A re-pin replaces the pin by design: it is the deliberate command.
	if err := outfile.Write(VerdictsPath(path), p.Verdicts, true); err != nil {
		return nil, err
	}
	// The replay line names the file as a user at the repository root
	// would, whatever directory the re-pin ran from (go test runs in
	// sweep/).
	replay := filepath.ToSlash(path)
	if i := strings.LastIndex(replay, DefaultCorpus+"/"); i >= 0 {
		replay = replay[i:]
	}
	if err := outfile.Write(path, p.File(replay), true); err != nil {
		return nil, err
	}
	return r, nil
}
