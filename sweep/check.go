package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/scenarios"
)

// Item is one scenario a check runs.
type Item struct {
	Name     string // the library name or the file path
	Scenario *scenarios.Scenario
	// Pin is set for a pinned corpus scenario: its digest is compared
	// too. PinPath, set for a pin on disk, also has its verdicts compared.
	Pin     *PinHeader
	PinPath string
}

// LibraryItems loads every embedded library scenario, in name order.
func LibraryItems(reg *hosts.Registry) ([]Item, error) {
	var items []Item
	var errs []error
	for _, name := range scenarios.LibraryNames(reg) {
		sc, err := scenarios.LoadLibrary(name, reg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		it := Item{Name: name, Scenario: sc}
		if data, err := scenarios.ReadLibrary(reg, name+".toml"); err == nil {
			if h, ok := ReadPinHeader(data); ok {
				it.Pin = &h
			}
		}
		items = append(items, it)
	}
	return items, errors.Join(errs...)
}

// DirItems loads every .toml file under dir (recursively), in path order.
func DirItems(dir string, reg *hosts.Registry) ([]Item, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { //detlint:allow fileread lists the directory the user named for check; the paths are sorted before use
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".toml") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no .toml scenario files", dir)
	}
	slices.Sort(paths)
	var items []Item
	var errs []error
	for _, p := range paths {
		sc, err := scenarios.Load(p, reg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		it := Item{Name: p, Scenario: sc}
		// Read again for the pin header through safefile, as the loader
		// did: the entry may have been replaced by a FIFO since.
		if data, err := safefile.ReadFile(p, scenarios.MaxFileBytes); err == nil {
			if h, ok := ReadPinHeader(data); ok {
				it.Pin, it.PinPath = &h, p
			}
		}
		items = append(items, it)
	}
	return items, errors.Join(errs...)
}

// Status is a checked scenario's standing against its expectation.
type Status string

const (
	AsExpected Status = "ok"       // the verdicts match the "# expect:" header (and the pin)
	Mismatch   Status = "MISMATCH" // they do not
	Reported   Status = "report"   // sensitivity-study: reported, never judged
	Broken     Status = "ERROR"    // the run could not finish (a bug)
)

// Checked is one scenario's check.
type Checked struct {
	Item
	Outcome *Outcome
	Status  Status
	// Reason says why the status is what it is, in one line.
	Reason string
}

// Check runs every item on workers workers and judges its verdicts
// against its "# expect:" header: pass-now wants no Fail, fail-until-fix
// at least one, sensitivity-study is only reported, and no header is a
// mismatch. A pinned scenario must also replay its digest (and, on disk,
// its verdicts file) exactly. emit sees each item in the order given.
// The returned counts are per Status; Interrupted is true when ctx ended
// the check early.
func Check(ctx context.Context, items []Item, reg *hosts.Registry, workers int, emit func(Checked)) (counts map[Status]int, interrupted bool) {
	counts = map[Status]int{}
	n := 0
	ordered(ctx, uint64(len(items)), workers,
		func(ctx context.Context, i uint64) (Checked, bool) {
			c := Checked{Item: items[i]}
			out, err := RunScenario(ctx, c.Scenario, reg)
			if errors.Is(err, ErrAbandoned) {
				return c, false
			}
			c.Outcome = out
			c.Status, c.Reason = judge(&c, err)
			return c, true
		},
		func(uint64, Checked) {},
		func(_ uint64, c Checked) {
			n++
			counts[c.Status]++
			emit(c)
		})
	return counts, n < len(items)
}

func judge(c *Checked, err error) (Status, string) {
	if err != nil {
		return Broken, err.Error()
	}
	failing := c.Outcome.Failing()
	var diffs []string
	if c.Pin != nil {
		if c.PinPath != "" {
			diffs = comparePin(*c.Pin, c.Outcome, c.PinPath)
		} else if c.Outcome.Digest != c.Pin.Digest {
			diffs = append(diffs, fmt.Sprintf("digest %s, pinned %s", c.Outcome.Digest, c.Pin.Digest))
		}
	}
	var status Status
	var reason string
	switch c.Scenario.Expect {
	case "pass-now":
		status, reason = AsExpected, "nothing failed"
		if len(failing) > 0 {
			status, reason = Mismatch, "expected to pass, but failed: "+strings.Join(failing, ", ")
		}
	case "fail-until-fix":
		status, reason = AsExpected, "failed as expected: "+strings.Join(failing, ", ")
		if len(failing) == 0 {
			status, reason = Mismatch, "expected to fail until its cause is fixed, but nothing failed (fixed? then say pass-now)"
		}
	case "sensitivity-study":
		status, reason = Reported, fmt.Sprintf("%d failing", len(failing))
		if len(failing) > 0 {
			reason += ": " + strings.Join(failing, ", ")
		}
	default:
		status, reason = Mismatch, "no \"# expect:\" header (pass-now, fail-until-fix or sensitivity-study)"
	}
	if len(diffs) > 0 {
		status, reason = Mismatch, "pinned replay differs: "+strings.Join(diffs, "; ")+
			" (if intended, re-pin: go test ./sweep -run TestCorpus -update)"
	}
	return status, reason
}
