package schemadiff

import (
	"fmt"
	"strings"
)

// KnownGapsSection is the heading of the known_gaps.md section that lists,
// machine-readably, the event kinds the simulator does not model.
//
// Format: the section runs from a line "## Events not modelled" to the
// next "## " heading (or the end). Every line in it that starts with "- "
// is an entry and must begin with a code span naming a kind, followed by
// free text (the reason):
//
//   - `iroh/*` — iroh internals ...
//
// A kind is `kind_tag/type` (one kind), `kind_tag/*` (every type of that
// kind tag), or `type` with no slash (that type under any kind tag).
// Other lines in the section (prose, blank lines, continuation lines
// indented under an entry) are ignored; a "- " line without a well-formed
// code span is an error, so a typo cannot silently stop a kind from being
// ignored.
const KnownGapsSection = "## Events not modelled"

// Gap is one entry of the known-gaps list.
type Gap struct {
	Tag  string // "" matches any kind tag
	Type string // "*" matches any type
	Line int    // 1-based line in known_gaps.md
}

func (g Gap) String() string {
	if g.Tag == "" {
		return g.Type
	}
	return g.Tag + "/" + g.Type
}

// Matches reports whether the gap covers the kind (tag, typ).
func (g Gap) Matches(tag, typ string) bool {
	return (g.Tag == "" || g.Tag == tag) && (g.Type == "*" || g.Type == typ)
}

// ParseKnownGaps reads the "## Events not modelled" list of a
// known_gaps.md document. A document without the section lists nothing.
func ParseKnownGaps(doc string) ([]Gap, error) {
	var gaps []Gap
	in := false
	for i, line := range strings.Split(doc, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "## ") || line == "##" {
			in = strings.TrimSpace(line) == KnownGapsSection
			continue
		}
		if !in || !strings.HasPrefix(line, "- ") {
			continue
		}
		g, err := parseGap(strings.TrimSpace(line[2:]))
		if err != nil {
			return nil, fmt.Errorf("known_gaps.md line %d: %v", i+1, err)
		}
		g.Line = i + 1
		gaps = append(gaps, g)
	}
	return gaps, nil
}

func parseGap(entry string) (Gap, error) {
	if !strings.HasPrefix(entry, "`") {
		return Gap{}, fmt.Errorf("an entry of %q must start with a code span naming a kind (`kind_tag/type`, `kind_tag/*` or `type`)", KnownGapsSection)
	}
	end := strings.IndexByte(entry[1:], '`')
	if end < 0 {
		return Gap{}, fmt.Errorf("unterminated code span")
	}
	kind := entry[1 : 1+end]
	tag, typ, slash := strings.Cut(kind, "/")
	if !slash {
		tag, typ = "", kind
	}
	switch {
	case slash && tag == "":
		return Gap{}, fmt.Errorf("%q: empty kind tag", kind)
	case typ == "":
		return Gap{}, fmt.Errorf("%q: empty type", kind)
	case !slash && typ == "*":
		return Gap{}, fmt.Errorf(`"*" alone would ignore every kind`)
	case strings.ContainsAny(kind, " \t") || strings.Count(kind, "/") > 1:
		return Gap{}, fmt.Errorf("%q is not `kind_tag/type`, `kind_tag/*` or `type`", kind)
	}
	return Gap{Tag: tag, Type: typ}, nil
}
