package verdict

import (
	"github.com/detsim/detsim/hosts"
)

// mark is one record cited as evidence.
type mark = hosts.Cite

// markAt cites the record on line at virtual time t.
func markAt(line int, t int64) mark { return hosts.Cite{Line: line, TimeNs: t} }

// fmtNs writes a virtual time the way every reason does, as exact
// seconds: 63.412518204s, 5s (vtime.Seconds).
func fmtNs(ns int64) string { return hosts.Seconds(ns) }
