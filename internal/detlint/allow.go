package detlint

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

const allowPrefix = "//detlint:allow"

// allow is one //detlint:allow comment in the file being checked.
type allow struct {
	pos    token.Pos
	line   int
	rule   string
	reason string
	used   bool
}

// parseAllows returns the allow comments of f in source order.
func parseAllows(fset *token.FileSet, f *ast.File) []*allow {
	var out []*allow
	for _, g := range f.Comments {
		for _, c := range g.List {
			rest, ok := strings.CutPrefix(c.Text, allowPrefix)
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
				continue
			}
			a := &allow{pos: c.Pos(), line: fset.Position(c.Pos()).Line}
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				a.rule = fields[0]
				a.reason = strings.Join(fields[1:], " ")
			}
			out = append(out, a)
		}
	}
	return out
}

// reportAllowProblems reports allow comments that cannot be honoured or
// that silence nothing, so no exemption hides from review (spec §15).
func (c *checker) reportAllowProblems() {
	for _, a := range c.allows {
		var msg string
		switch {
		case !slices.Contains(Rules, a.rule):
			msg = "allow comment names no known rule (want //detlint:allow <rule> <reason>; rules: " + strings.Join(Rules, ", ") + ")"
		case a.reason == "":
			msg = "allow comment for " + a.rule + " has no reason (want //detlint:allow <rule> <reason>)"
		case !a.used:
			msg = "allow comment for " + a.rule + " silences nothing on its line; delete it"
		default:
			continue
		}
		c.pass.Report(analysis.Diagnostic{Pos: a.pos, Category: "allow", Message: "detlint(allow): " + msg})
	}
}
