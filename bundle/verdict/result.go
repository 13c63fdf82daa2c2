package verdict

import (
	"github.com/detsim/detsim/hosts"
)

// mark is one record cited as evidence.
type mark struct {
	line   int
	timeNs int64
}

// result is a core checker's verdict once resolved.
type result struct{ hosts.Result }

// resolve fixes the verdict (hosts.Result.Resolve).
func (r *result) resolve(o Outcome, reason string, marks ...mark) {
	cites := make([]hosts.Cite, len(marks))
	for i, m := range marks {
		cites[i] = hosts.Cite{Line: m.line, TimeNs: m.timeNs}
	}
	r.Resolve(o, reason, cites...)
}

func (r result) clone() result { return result{r.Result.Clone()} }

// fmtNs writes a virtual time the way every reason does, as exact
// seconds: 63.412518204s, 5s (vtime.Seconds).
func fmtNs(ns int64) string { return hosts.Seconds(ns) }
