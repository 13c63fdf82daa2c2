package detlint

import (
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
