// Package allow shows the only escape hatch: an allow comment with a reason
// silences its line; any other allow comment is itself a finding.
package allow

import "time"

func counts(m map[string]int) (int, int64) {
	n := 0
	for range m { //detlint:allow maprange counting entries does not depend on order
		n++
	}
	for range m { /* want `detlint\(maprange\): range over map` `detlint\(allow\): allow comment for maprange has no reason` */ //detlint:allow maprange
		n++
	}
	t := time.Now()        /* want `detlint\(time\)` `detlint\(allow\): allow comment names no known rule` */ //detlint:allow clock it is only logged
	return n, t.UnixNano() /* want `detlint\(allow\): allow comment for time silences nothing on its line` */ //detlint:allow time stale exemption
}
