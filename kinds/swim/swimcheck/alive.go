package swimcheck

import (
	"fmt"
)

// aliveCount tracks how many ordered pairs of distinct named peers do not
// hold each other alive, so an instant is judged in O(1).
type aliveCount struct {
	peers peerSet
	bad   int
}

func newAliveCount(peers peerSet) aliveCount {
	n := len(peers.order)
	return aliveCount{peers: peers, bad: n * (n - 1)} // nobody has a view yet
}

func (a *aliveCount) onView(c viewChange) {
	if c.observer == c.subject || !a.peers.has(c.observer) || !a.peers.has(c.subject) {
		return
	}
	if c.was == alive {
		a.bad++
	}
	if c.cur.state == alive {
		a.bad--
	}
}

// describeView says what o's view of s is, for a reason.
func describeView(w *world, o, s int32, v view) string {
	if v.state == noView {
		return fmt.Sprintf("%s has no view of %s", w.name(o), w.name(s))
	}
	return fmt.Sprintf("%s's view of %s is %s (incarnation %d)", w.name(o), w.name(s), v.state, v.incarnation)
}

// judge resolves r at instant t: Pass citing the latest view, or Fail
// citing every view that is not alive.
func (a *aliveCount) judge(w *world, r *result, t int64) {
	var offenders, latest []mark
	first := ""
	latestO, latestS, latestLine := int32(-1), int32(-1), 0
	for _, o := range a.peers.order {
		for _, s := range a.peers.order {
			if o == s {
				continue
			}
			v := w.peek(o, s) // the time only of the views cited
			if v.state != alive {
				if first == "" {
					first = describeView(w, o, s, v)
				}
				if v.line > 0 {
					offenders = append(offenders, w.mark(o, s))
				}
			} else if latestO < 0 || v.line > latestLine {
				latestO, latestS, latestLine = o, s, v.line
			}
		}
	}
	if latestO >= 0 {
		latest = []mark{w.mark(latestO, latestS)}
	}
	n := len(a.peers.order)
	if a.bad == 0 {
		r.resolve(Pass, fmt.Sprintf("at %s every view among the %d named peers is alive", fmtNs(t), n), latest...)
		return
	}
	r.resolve(Fail, fmt.Sprintf("at %s %d of %d views are not alive: %s", fmtNs(t), a.bad, n*(n-1), first), offenders...)
}

// allAliveAt is all_alive_at { at_ns, peers }.
type allAliveAt struct {
	base
	at    int64
	count aliveCount
}

func newAllAliveAt(w *world, p AllAliveAt) checker {
	return &allAliveAt{at: p.AtNs, count: newAliveCount(newPeerSet(w, p.Peers))}
}

func (c *allAliveAt) wants() want                   { return wantViews }
func (c *allAliveAt) onView(_ *world, v viewChange) { c.count.onView(v) }

func (c *allAliveAt) hold(w *world, from, to int64) {
	if from <= c.at && c.at <= to {
		c.count.judge(w, &c.res, c.at)
	}
}

func (c *allAliveAt) finish(_ *world, endNs int64) {
	c.res.resolve(Inconclusive, fmt.Sprintf("the run ended at %s, before at_ns %s", fmtNs(endNs), fmtNs(c.at)))
}

func (c *allAliveAt) clone() checker { d := *c; d.res = c.res.clone(); return &d }

// allAliveThroughout is all_alive_throughout { window_start_ns,
// window_end_ns, peers }.
type allAliveThroughout struct {
	base
	start, end int64
	count      aliveCount
}

func newAllAliveThroughout(w *world, p AllAliveThroughout) checker {
	c := &allAliveThroughout{start: p.WindowStartNs, end: p.WindowEndNs}
	c.count = newAliveCount(newPeerSet(w, p.Peers))
	return c
}

func (c *allAliveThroughout) wants() want                   { return wantViews }
func (c *allAliveThroughout) onView(_ *world, v viewChange) { c.count.onView(v) }

func (c *allAliveThroughout) hold(w *world, from, to int64) {
	if to < c.start {
		return
	}
	if c.count.bad > 0 {
		c.count.judge(w, &c.res, max(from, c.start))
		return
	}
	if to >= c.end {
		c.res.resolve(Pass, fmt.Sprintf("every view among the %d named peers was alive from %s to %s",
			len(c.count.peers.order), fmtNs(c.start), fmtNs(c.end)))
	}
}

func (c *allAliveThroughout) finish(_ *world, endNs int64) {
	c.res.resolve(Inconclusive, fmt.Sprintf("the run ended at %s, before window_end_ns %s, with every view alive so far",
		fmtNs(endNs), fmtNs(c.end)))
}

func (c *allAliveThroughout) clone() checker { d := *c; d.res = c.res.clone(); return &d }
