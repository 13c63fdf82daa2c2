package verdict

import (
	"fmt"
	"slices"

	"github.com/detsim/detsim/bundle"
)

// eventCount is event_count { event_type, max }.
type eventCount struct {
	base
	eventType string
	maxCount  int64
	n         int64
	first     mark
}

func newEventCount(_ *world, r *paramReader) checker {
	return &eventCount{eventType: r.str("event_type"), maxCount: r.nonNegative("max")}
}

func (c *eventCount) wants() want { return wantRecords }

func (c *eventCount) onRecord(line int, rec bundle.EventRecord) {
	if rec.Type != c.eventType {
		return
	}
	c.n++
	m := mark{line, rec.VirtualTimeNs}
	if c.n == 1 {
		c.first = m
	}
	if c.n > c.maxCount {
		c.res.resolve(Fail, fmt.Sprintf("%s occurred %d times by %s, more than max %d",
			c.eventType, c.n, fmtNs(rec.VirtualTimeNs), c.maxCount), c.first, m)
	}
}

func (c *eventCount) finish(*world, int64) {
	c.res.resolve(Pass, fmt.Sprintf("%s occurred %d times, within max %d", c.eventType, c.n, c.maxCount))
}

func (c *eventCount) clone() checker { d := *c; d.res = c.res.clone(); return &d }

// eventRate is event_rate { event_type, window_ns, max_per_window }: in
// no half-open window (t - window_ns, t] do more than max_per_window
// records of the type fall.
type eventRate struct {
	base
	eventType string
	windowNs  int64
	maxPer    int64
	recent    []mark // the matching records inside the window ending now, oldest first
	busiest   int
}

func newEventRate(_ *world, r *paramReader) checker {
	c := &eventRate{eventType: r.str("event_type"), windowNs: r.nonNegative("window_ns"), maxPer: r.nonNegative("max_per_window")}
	if r.err == nil && c.windowNs == 0 {
		r.fail("window_ns", "must be at least 1")
	}
	return c
}

func (c *eventRate) wants() want { return wantRecords }

func (c *eventRate) onRecord(line int, rec bundle.EventRecord) {
	if rec.Type != c.eventType {
		return
	}
	t := rec.VirtualTimeNs
	drop := 0
	for drop < len(c.recent) && c.recent[drop].timeNs <= t-c.windowNs {
		drop++
	}
	c.recent = append(c.recent[drop:], mark{line, t}) // never longer than max_per_window+1
	c.busiest = max(c.busiest, len(c.recent))
	if int64(len(c.recent)) > c.maxPer {
		c.res.resolve(Fail, fmt.Sprintf("%d %s records within %s ending at %s, more than max_per_window %d",
			len(c.recent), c.eventType, fmtNs(c.windowNs), fmtNs(t), c.maxPer), c.recent[0], c.recent[len(c.recent)-1])
	}
}

func (c *eventRate) finish(*world, int64) {
	c.res.resolve(Pass, fmt.Sprintf("at most %d %s records fell within any %s, within max_per_window %d",
		c.busiest, c.eventType, fmtNs(c.windowNs), c.maxPer))
}

func (c *eventRate) clone() checker {
	d := *c
	d.res = c.res.clone()
	d.recent = slices.Clone(c.recent)
	return &d
}
