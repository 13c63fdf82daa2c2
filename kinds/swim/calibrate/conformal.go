package calibrate

import (
	"fmt"
	"slices"

	"github.com/detsim/detsim/bundle"
)

// ConformalAlpha is the false-alarm rate the whole-recording rule allows:
// a recording of a configuration the model gets right alarms with at most
// this probability (docs/calibration.md, "False alarms").
const ConformalAlpha = 0.05

// Conformal judges the recording as a whole, where the row table judges
// each metric on its own. Every row has its own small chance of failing a
// right model (ten seeds' [min, max] holds a new run with probability
// 9/11, before the tolerance's margin), and a pair has hundreds of rows,
// so a correct recording fails some row most of the time: measured, 18 of
// 23 clean recordings of swimd configurations did (docs/calibration.md).
// The rule here does not add up per-row chances. It asks whether the
// recording fails more rows than the simulator's own runs do when each is
// judged exactly as the recording is: seed i's run against the other K−1
// seeds and the recording. If the model is right, the recording and the K
// runs are exchangeable, so the recording's count is the largest of the
// K+1 with probability at most 1/(K+1): the rank p-value below is exact,
// whatever the rows' dependence. It alarms when p ≤ ConformalAlpha, which
// needs K ≥ 19 seeds (at the default K = 10 the smallest p is 1/11 and it
// cannot alarm; Write says so).
type Conformal struct {
	// Fails is how many rows the recording fails (the table's FAIL rows
	// but those past the recording's end).
	Fails int `json:"fails"`
	// SeedFails is, for each seed in order, how many rows its run fails
	// judged against the other seeds and the recording.
	SeedFails []int `json:"seed_fails"`
	// P is (1 + seeds failing at least Fails rows) / (K + 1).
	P     float64 `json:"p"`
	Alpha float64 `json:"alpha"`
	// Alarm is P ≤ Alpha.
	Alarm bool `json:"alarm"`
}

// conformal computes the whole-recording rule for the K seeds' sides and
// the recording's, with the table's tolerances and unobservable rows.
func conformal(sims []side, prod side, tol *Tolerances, un []bundle.Unobserved) *Conformal {
	fails := func(ref []side, s side) int {
		rows := compare(ref, s, tol)
		markUnobservable(rows, un)
		n := 0
		for _, r := range rows {
			if r.Status == Fail {
				n++
			}
		}
		return n
	}
	c := &Conformal{Fails: fails(sims, prod), SeedFails: make([]int, len(sims)), Alpha: ConformalAlpha}
	atLeast := 0
	for i := range sims {
		ref := append(slices.Clone(sims[:i]), sims[i+1:]...)
		ref = append(ref, prod)
		c.SeedFails[i] = fails(ref, sims[i])
		if c.SeedFails[i] >= c.Fails {
			atLeast++
		}
	}
	c.P = float64(1+atLeast) / float64(len(sims)+1)
	c.Alarm = c.P <= c.Alpha
	return c
}

// line is the report's one-line account of the rule.
func (c *Conformal) line() string {
	sorted := slices.Clone(c.SeedFails)
	slices.Sort(sorted)
	k := len(sorted)
	s := fmt.Sprintf("the recording fails %d rows; each of the %d seeds, judged the same way against the others and the recording, fails %d to %d (median %d): rank p = %.3f",
		c.Fails, k, sorted[0], sorted[k-1], sorted[k/2], c.P)
	if c.Alarm {
		s += fmt.Sprintf(" ≤ %g: ALARM, the recording fails more rows than the model's own runs do", c.Alpha)
	} else {
		s += fmt.Sprintf(" > %g: no alarm", c.Alpha)
	}
	return s
}
