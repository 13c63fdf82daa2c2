package verdict

import (
	"fmt"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

// eventCount is event_count { event_type, max }.
type eventCount struct {
	base
	eventType string
	maxCount  int64
	n         int64
	first     mark
}

func newEventCount(_ *world, p scenarios.EventCount) checker {
	return &eventCount{eventType: p.EventType, maxCount: p.Max}
}

func (c *eventCount) wants() want { return wantRecords }

func (c *eventCount) onRecord(_ *world, line int, rec bundle.EventRecord) {
	if rec.Type != c.eventType {
		return
	}
	c.n++
	m := markAt(line, rec.VirtualTimeNs)
	if c.n == 1 {
		c.first = m
	}
	if c.n > c.maxCount {
		c.res.Resolve(Fail, fmt.Sprintf("%s occurred %d times by %s, more than max %d",
			c.eventType, c.n, fmtNs(rec.VirtualTimeNs), c.maxCount), c.first, m)
	}
}

func (c *eventCount) finish(*world, int64) {
	c.res.Resolve(Pass, fmt.Sprintf("%s occurred %d times, within max %d", c.eventType, c.n, c.maxCount))
}

func (c *eventCount) clone() checker { d := *c; d.res = c.res.Clone(); return &d }

// eventRate is event_rate { event_type, window_ns, max_per_window }: in
// no half-open window (t - window_ns, t] do more than max_per_window
// records of the type fall. The records themselves are in the world's
// log for the type, shared with every other event_rate over it; the
// assertion keeps only where its window starts in that log.
type eventRate struct {
	base
	eventType string
	windowNs  int64
	maxPer    int64
	log, slot int   // its log in world.rates and its reader slot there
	head      int64 // the index of the oldest entry inside the window ending now
	headOff   int64 // that entry's absolute byte offset in the log
	prev      mark  // the entry before it, which it is encoded against
	busiest   int64
}

func newEventRate(w *world, p scenarios.EventRate) checker {
	c := &eventRate{eventType: p.EventType, windowNs: p.WindowNs, maxPer: p.MaxPerWindow} // window_ns ≥ 1: Assertion.Check
	c.log, c.slot = w.rates.join(c.eventType)
	return c
}

func (c *eventRate) wants() want { return wantRecords }

// onRecord runs after the evaluator appended the record to the log.
func (c *eventRate) onRecord(w *world, line int, rec bundle.EventRecord) {
	if rec.Type != c.eventType {
		return
	}
	l := &w.rates[c.log]
	t := rec.VirtualTimeNs
	first := markAt(line, t) // the oldest record of the window: this one, until the loop finds an older one
	for c.head < l.n {
		m, size := l.at(c.headOff, c.prev)
		if m.TimeNs > t-c.windowNs {
			first = m
			break
		}
		c.prev, c.headOff, c.head = m, c.headOff+int64(size), c.head+1
	}
	l.heads[c.slot] = c.headOff
	n := l.n - c.head // never more than max_per_window+1
	c.busiest = max(c.busiest, n)
	if n > c.maxPer {
		l.leave(c.slot)
		c.res.Resolve(Fail, fmt.Sprintf("%d %s records within %s ending at %s, more than max_per_window %d",
			n, c.eventType, fmtNs(c.windowNs), fmtNs(t), c.maxPer), first, markAt(line, t))
	}
}

func (c *eventRate) finish(*world, int64) {
	c.res.Resolve(Pass, fmt.Sprintf("at most %d %s records fell within any %s, within max_per_window %d",
		c.busiest, c.eventType, fmtNs(c.windowNs), c.maxPer))
}

// clone copies the assertion's place in the log; Evaluator.Clone copies
// the log itself, once, with the world.
func (c *eventRate) clone() checker { d := *c; d.res = c.res.Clone(); return &d }
