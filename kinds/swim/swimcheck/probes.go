package swimcheck

import (
	"slices"
)

// Direction of a direct probe relative to the assertion's peer Y.
const (
	toPeer   = 0 // X probes Y
	fromPeer = 1 // Y probes X
)

// pendingProbe is a direct probe sent inside a span and not yet acked or
// timed out. ord numbers the direct probes sent between X and Y that way.
type pendingProbe struct {
	dir uint8
	seq uint64
	ord uint64
}

// maxUnsettled is how many later direct probes the same way between the
// same two peers a pending probe survives. Past that it is forgotten, as
// a probe still pending at the end of the run is: kinds/swim/swim never has
// more than one direct probe outstanding per prober (its timeout is
// shorter than its interval), so only a bundle whose probes never settle
// reaches it, and the spans following X and Y then stay bounded.
const maxUnsettled = 16

type spanRole uint8

const (
	// roleOpen spans are still collecting the probes sent between X and Y.
	roleOpen spanRole = iota
	// roleCheck spans are closed: they judge one flap or one death once
	// every probe sent inside them has settled.
	roleCheck
	// roleWindow spans collect the probes sent inside the assertion's
	// window, to tell whether the precondition ever fired.
	roleWindow
)

// span accumulates the fate of the direct probes between X and Y sent
// between two records.
type span struct {
	role    spanRole
	x       int32
	acked   [2]int
	lastAck [2]mark
	failed  bool
	pending []pendingProbe
	marks   []mark // the transitions that opened and closed it
}

// succeeding reports whether, ignoring any pending probe, no probe failed
// and at least one succeeded each way.
func (s *span) succeeding() bool { return !s.failed && s.acked[toPeer] > 0 && s.acked[fromPeer] > 0 }

func (s *span) settled() bool { return s.failed || len(s.pending) == 0 }

// evidence cites the span's transitions and its last ack each way.
func (s *span) evidence() []mark {
	return append(slices.Clone(s.marks), s.lastAck[toPeer], s.lastAck[fromPeer])
}

func (s span) clone() span {
	s.pending = slices.Clone(s.pending)
	s.marks = slices.Clone(s.marks)
	return s
}

// probeSpans follows the direct probes between one peer Y and every other
// peer X, for the assertions that ask whether probes were succeeding.
type probeSpans struct {
	y          int32
	start, end int64 // the assertion's window
	spans      []span
	fired      bool        // some X had a probe each way succeed inside the window
	windowDone bool        // every record at or before the window's end is read
	sends      [][2]uint64 // by X: direct probes sent X→Y and Y→X so far
}

// onProbe applies one direct probe event and returns the first check
// that is now settled and violated, if any.
func (p *probeSpans) onProbe(f probeFact) (*span, bool) {
	var x int32
	var dir uint8
	switch {
	case f.target == p.y && f.prober != p.y:
		x, dir = f.prober, toPeer
	case f.prober == p.y && f.target != p.y:
		x, dir = f.target, fromPeer
	default:
		return nil, false
	}
	if f.step == probeSent {
		if p.sent(x, dir, f) {
			return p.settle()
		}
		return nil, false
	}
	for i := range p.spans {
		s := &p.spans[i]
		if s.x != x {
			continue
		}
		j := slices.IndexFunc(s.pending, func(q pendingProbe) bool { return q.dir == dir && q.seq == f.seq })
		if j < 0 {
			continue
		}
		s.pending = slices.Delete(s.pending, j, j+1)
		if f.step == probeAcked {
			s.acked[dir]++
			s.lastAck[dir] = mark{f.line, f.timeNs}
		} else {
			s.failed = true
		}
		if s.role == roleWindow && s.acked[toPeer] > 0 && s.acked[fromPeer] > 0 {
			p.fired = true
		}
	}
	if p.fired {
		p.spans = slices.DeleteFunc(p.spans, func(s span) bool { return s.role == roleWindow })
	}
	return p.settle()
}

// sent adds a probe to X's open span and, inside the window, to X's
// window span, and forgets the probes the same way that maxUnsettled
// later ones have overtaken. It reports whether it forgot any.
func (p *probeSpans) sent(x int32, dir uint8, f probeFact) (forgot bool) {
	for int(x) >= len(p.sends) {
		p.sends = append(p.sends, [2]uint64{})
	}
	p.sends[x][dir]++
	q := pendingProbe{dir, f.seq, p.sends[x][dir]}
	inWindow := !p.fired && p.start <= f.timeNs && f.timeNs <= p.end
	haveWindow := false
	for i := range p.spans {
		s := &p.spans[i]
		if s.x != x {
			continue
		}
		n := len(s.pending)
		s.pending = slices.DeleteFunc(s.pending, func(o pendingProbe) bool { return o.dir == dir && o.ord+maxUnsettled <= q.ord })
		forgot = forgot || len(s.pending) < n
		switch s.role {
		case roleOpen:
			s.pending = append(s.pending, q)
		case roleWindow:
			haveWindow = true
			if inWindow {
				s.pending = append(s.pending, q)
			}
		}
	}
	if inWindow && !haveWindow {
		p.spans = append(p.spans, span{role: roleWindow, x: x, pending: []pendingProbe{q}})
	}
	return forgot
}

// peerKilled records that k was killed. Probes between X and Y cannot be
// succeeding across the death of either, so every open span of a pair
// including k fails, and so does every check still waiting on a probe k
// sent: that probe will never be acked. A window span just forgets such
// probes, as if the run had ended.
func (p *probeSpans) peerKilled(k int32) (*span, bool) {
	for i := range p.spans {
		s := &p.spans[i]
		if s.role == roleOpen && (k == p.y || k == s.x) {
			s.failed = true
		}
		n := len(s.pending)
		s.pending = slices.DeleteFunc(s.pending, func(q pendingProbe) bool {
			return (k == p.y && q.dir == fromPeer) || (k == s.x && q.dir == toPeer)
		})
		if s.role == roleCheck && len(s.pending) < n {
			s.failed = true
		}
	}
	return p.settle()
}

// open starts X's open span at the record m, dropping any previous one.
func (p *probeSpans) open(x int32, m mark) {
	p.drop(x)
	p.spans = append(p.spans, span{role: roleOpen, x: x, marks: []mark{m}})
}

// drop discards X's open span.
func (p *probeSpans) drop(x int32) {
	p.spans = slices.DeleteFunc(p.spans, func(s span) bool { return s.role == roleOpen && s.x == x })
}

// openSpan returns X's open span, or nil.
func (p *probeSpans) openSpan(x int32) *span {
	if i := p.openIndex(x); i >= 0 {
		return &p.spans[i]
	}
	return nil
}

func (p *probeSpans) openIndex(x int32) int {
	return slices.IndexFunc(p.spans, func(s span) bool { return s.role == roleOpen && s.x == x })
}

// close turns X's open span into a check ending at the record m and
// judges whatever is settled. Checks are kept in the order they closed,
// which is the order "first violation" refers to.
func (p *probeSpans) close(x int32, m mark) (*span, bool) {
	if i := p.openIndex(x); i >= 0 {
		c := p.spans[i]
		c.role = roleCheck
		c.marks = append(c.marks, m)
		p.spans = append(slices.Delete(p.spans, i, i+1), c)
	}
	return p.settle()
}

// settle drops every settled check that was not violated and returns the
// first, in creation order, that was.
func (p *probeSpans) settle() (*span, bool) {
	for i := 0; i < len(p.spans); {
		s := &p.spans[i]
		if s.role != roleCheck || !s.settled() {
			i++
			continue
		}
		if s.succeeding() {
			return s, true
		}
		p.spans = slices.Delete(p.spans, i, i+1)
	}
	return nil, false
}

// closeWindow is called once every record up to the window's end has
// been read: no open span can become a check any more.
func (p *probeSpans) closeWindow() {
	p.windowDone = true
	p.spans = slices.DeleteFunc(p.spans, func(s span) bool { return s.role == roleOpen })
}

// undecided reports whether a check or the precondition still waits on
// pending probes.
func (p *probeSpans) undecided() bool {
	for i := range p.spans {
		s := &p.spans[i]
		if s.role == roleCheck || (s.role == roleWindow && len(s.pending) > 0) {
			return true
		}
	}
	return false
}

// violatedAtEnd returns the first check, in creation order, that is
// violated once the probes still pending are ignored.
func (p *probeSpans) violatedAtEnd() (*span, bool) {
	for i := range p.spans {
		if s := &p.spans[i]; s.role == roleCheck && s.succeeding() {
			return s, true
		}
	}
	return nil, false
}

func (p *probeSpans) clone() probeSpans {
	c := *p
	c.sends = slices.Clone(p.sends)
	c.spans = make([]span, len(p.spans))
	for i := range p.spans {
		c.spans[i] = p.spans[i].clone()
	}
	return c
}
