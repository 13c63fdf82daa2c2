package bundle

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultDir is where a run writes its bundle when no path is given:
// root/<name>-<seed>. The scenario loader validates names, so this is
// one new path element under root; the check here is the last line of
// defence, since the path is about to be written.
func DefaultDir(root, name string, seed uint64) (string, error) {
	base := name + "-" + strconv.FormatUint(seed, 10)
	if base != filepath.Base(base) || strings.HasPrefix(base, ".") || filepath.Clean(base) != base {
		return "", fmt.Errorf("scenario name %q cannot name a bundle directory; use letters, digits, '_', '-' and '.', or pass --out", name)
	}
	return filepath.Join(root, base), nil
}

// OtherScenarioError is a default output directory holding a bundle of
// another scenario: the same name and seed, a different scenario file (a
// shrunk scenario keeps its original's name). A run given no --out never
// replaces it.
type OtherScenarioError struct {
	Dir               string
	HeldPath, HeldSHA string // the scenario of the bundle there
	Path, SHA         string // the scenario of the run
}

func (e *OtherScenarioError) Error() string {
	return fmt.Sprintf("%s holds a run of another scenario with the same name and seed (%s, sha256 %s; this run is %s, sha256 %s): it is left alone",
		e.Dir, e.HeldPath, short(e.HeldSHA), e.Path, short(e.SHA))
}

func short(sha string) string { return sha[:min(len(sha), 12)] + "…" }

// CheckDefaultDir refuses dir, a run's default output directory, when it
// holds a detsim bundle made from a scenario file other than the one
// whose bytes hash to sha (hex): the name and seed alone do not say whose
// bundle it is. A missing dir, or one that is not a bundle at all, is for
// Create to judge.
func CheckDefaultDir(dir, path, sha string) error {
	if !isManifestDir(dir) {
		return nil
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return nil
	}
	if m.ScenarioSHA256 == sha {
		return nil
	}
	return &OtherScenarioError{Dir: dir, HeldPath: m.ScenarioPath, HeldSHA: m.ScenarioSHA256, Path: path, SHA: sha}
}
