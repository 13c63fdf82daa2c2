package verdict

import (
	"github.com/detsim/detsim/scenarios"
)

// constructor returns the function building the checker of p, one of
// the core's own kinds, or nil for any other value. Building nothing
// yet, it lets New check p first.
func constructor(p scenarios.AssertionParams) func(*world) checker {
	switch p := p.(type) {
	case scenarios.EventCount:
		return func(w *world) checker { return newEventCount(w, p) }
	case scenarios.EventRate:
		return func(w *world) checker { return newEventRate(w, p) }
	}
	return nil
}
