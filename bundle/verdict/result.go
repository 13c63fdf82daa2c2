package verdict

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/detsim/detsim/internal/vtime"
)

// mark is one record cited as evidence.
type mark struct {
	line   int
	timeNs int64
}

func (m mark) evidence() Evidence {
	return Evidence{VirtualTimeNs: m.timeNs, Ref: "events.ndjson#L" + strconv.Itoa(m.line)}
}

// markOf cites the record that set v; a missing view has no record.
func markOf(v view) (mark, bool) { return mark{v.line, v.timeNs}, v.line > 0 }

// result is a checker's verdict once resolved.
type result struct {
	resolved bool
	outcome  Outcome
	reason   string
	evidence []Evidence
	line     int // the record that resolved it while streaming; 0 at Finish
}

// resolve fixes the verdict. Evidence is cited in line order, each
// record once, at most maxEvidence of them; the reason counts the rest.
func (r *result) resolve(o Outcome, reason string, marks ...mark) {
	marks = slices.Clone(marks)
	slices.SortFunc(marks, func(a, b mark) int { return a.line - b.line })
	marks = slices.CompactFunc(marks, func(a, b mark) bool { return a.line == b.line })
	if extra := len(marks) - maxEvidence; extra > 0 {
		marks = marks[:maxEvidence]
		reason += fmt.Sprintf(" (+%d more records not cited)", extra)
	}
	r.evidence = make([]Evidence, len(marks))
	for i, m := range marks {
		r.evidence[i] = m.evidence()
	}
	r.resolved, r.outcome, r.reason = true, o, reason
}

func (r result) clone() result {
	r.evidence = slices.Clone(r.evidence)
	return r
}

// fmtNs writes a virtual time the way every reason does, as exact
// seconds: 63.412518204s, 5s (vtime.Seconds).
func fmtNs(ns int64) string { return vtime.Seconds(ns) }
