package detlint

import (
	"go/importer"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRules_PlantedViolations_7 proves every rule with a planted violation:
// each reports exactly where and what the want comments say.
func TestRules_PlantedViolations_7(t *testing.T) {
	checkTestdata(t, Analyzer, "planted")
}

// TestRules_NearMissesAreClean_7_3 holds deterministic code that looks like
// a violation — sorted map keys, point lookups, integer math, time methods,
// floats in comments and strings, test files — and must stay unreported.
func TestRules_NearMissesAreClean_7_3(t *testing.T) {
	checkTestdata(t, Analyzer, "clean")
}

// TestAllow_NeedsReason_15 shows the escape hatch: an allow comment with a
// reason silences its line; one without a reason, naming an unknown rule
// or silencing nothing is reported, so exemptions surface in review.
func TestAllow_NeedsReason_15(t *testing.T) {
	checkTestdata(t, Analyzer, "allow")
}

// TestExemptions_SwitchOffOnlyTheirRule: a package exempted from fileread,
// as bundle and scenarios are, is still checked for everything else.
func TestExemptions_SwitchOffOnlyTheirRule(t *testing.T) {
	a := New([]Exemption{{Package: "exempt", Rules: []string{ruleFileRead}, Why: "test"}})
	checkTestdata(t, a, "exempt")
}

// TestEveryRuleIsPlanted keeps the rule list and the planted package in
// step: a new rule without a planted violation fails here.
func TestEveryRuleIsPlanted(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "src", "planted", "*.go"))
	var all strings.Builder
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, r := range Rules {
		if !strings.Contains(all.String(), "want `detlint\\("+r+"\\)") {
			t.Errorf("rule %s has no planted violation in testdata/src/planted", r)
		}
	}
}

// TestExemptions_FileScoped_15: an exemption naming files switches its
// rules off in those files only; the package's other files keep them.
func TestExemptions_FileScoped_15(t *testing.T) {
	a := New([]Exemption{{Package: "exemptfile", Files: []string{"display.go"}, Rules: []string{ruleTime, ruleFloat}, Why: "test"}})
	checkTestdata(t, a, "exemptfile")
}

// TestExemptions_StaleFileIsReported_15: a row naming a file the package
// does not have (renamed, deleted) is itself reported, so it cannot rot.
func TestExemptions_StaleFileIsReported_15(t *testing.T) {
	a := New([]Exemption{
		{Package: "exemptfile", Files: []string{"display.go"}, Rules: []string{ruleTime, ruleFloat}, Why: "test"},
		{Package: "exemptfile", Files: []string{"gone.go"}, Rules: []string{ruleTime}, Why: "test"},
	})
	fset, files := parseTestdata(t, "exemptfile")
	diags, err := run(a, fset, "exemptfile", files, importer.Default())
	if err != nil {
		t.Fatal(err)
	}
	stale := 0
	for _, d := range diags {
		if strings.Contains(d.Message, "exemption for file gone.go") {
			stale++
		}
	}
	if stale != 1 {
		t.Errorf("got %d reports of the stale exemption row, want 1 (all: %v)", stale, diags)
	}
}
