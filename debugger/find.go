package debugger

import "github.com/detsim/detsim/engine"

// Found is where a search or a go-to-record landed.
type Found struct {
	Line int64 // the matching record's line; 0 when none matched
	Step int64 // the step that emitted it
}

// Search looks for the next record after line from (forward) or the
// latest before it (backward) that meets q, over the whole run: the
// records the cache holds first, then by running on (forward) or by
// re-executing earlier checkpoint intervals, latest first (backward).
// A run is deterministic, so what it finds is exactly what a linear scan
// of events.ndjson would find (tested).
//
// When the match is in the cache the session does not move; otherwise it
// ends at the step that emitted it (forward), or at the matching step
// found (backward), so a viewer's log holds it. With no match it reports
// Line 0 and leaves the session where it was, unless pause interrupted
// it: finished false, call again with the same arguments and the state
// in resume.
func (s *Session) Search(q Query, from int64, forward bool, resume *SearchState, pause Pause) (f Found, finished bool, err error) {
	e := s.tl.Engine()
	if resume == nil || !resume.started {
		st := SearchState{started: true, home: e.Index()}
		if resume != nil {
			*resume = st
		} else {
			resume = &st
		}
		if f, ok := s.searchCache(&q, from, forward); ok {
			return f, true, nil
		}
		resume.u = -1
	}
	if forward {
		return s.searchForward(q, from, resume, pause)
	}
	return s.searchBackward(q, from, resume, pause)
}

// SearchState carries a search across pauses.
type SearchState struct {
	started bool
	home    int64 // the step the search started from
	u       int64 // backward: the latest step still to scan; -1 not set
	hiLine  int64 // backward: only lines before this one
}

// searchCache scans the cached records between from and the current end
// (forward) or from back to the oldest cached line (backward).
func (s *Session) searchCache(q *Query, from int64, forward bool) (Found, bool) {
	recs := s.tl.Engine().Records()
	if forward {
		for n := max(from+1, 1); n <= recs; n++ {
			r, ok := s.Record(n)
			if !ok {
				continue // older than the cache: the forward scan is after it
			}
			if q.Match(r.Bytes, r.Step, r.At) {
				return Found{Line: n, Step: r.Step}, true
			}
		}
		return Found{}, false
	}
	for n := min(from-1, recs); n >= 1; n-- {
		r, ok := s.Record(n)
		if !ok {
			return Found{}, false
		}
		if q.Match(r.Bytes, r.Step, r.At) {
			return Found{Line: n, Step: r.Step}, true
		}
	}
	return Found{}, false
}

func (s *Session) searchForward(q Query, from int64, st *SearchState, pause Pause) (Found, bool, error) {
	e := s.tl.Engine()
	lo := max(from, e.Records())
	s.armed = append(s.armed[:0], armedQuery{q: &q, slot: -1, lo: lo})
	defer s.disarm()
	var found Found
	for !s.tl.Engine().Done() {
		_, stopped := s.tl.Continue(func(int64, engine.StepInfo) bool {
			a := &s.armed[0]
			if a.hit {
				found = Found{Line: a.first, Step: s.tl.Engine().Index()}
				return true
			}
			return false
		}, pauseEvery)
		if stopped {
			return found, true, nil
		}
		if pause != nil && pause() && !s.tl.Engine().Done() {
			return Found{}, false, nil
		}
	}
	// Nothing after from: go back where the search started.
	if _, err := s.tl.Goto(st.home); err != nil {
		return Found{}, true, err
	}
	return Found{}, true, nil
}

func (s *Session) searchBackward(q Query, from int64, st *SearchState, pause Pause) (Found, bool, error) {
	// The cache was scanned down to its oldest line: look before that.
	oldest := from
	for n := min(from-1, s.tl.Engine().Records()); n >= 1; n-- {
		if _, ok := s.Record(n); !ok {
			break
		}
		oldest = n
	}
	if st.u < 0 {
		r, ok := s.Record(oldest)
		if !ok || oldest <= 1 {
			if oldest <= 1 {
				return Found{}, true, nil
			}
			st.u = s.tl.Engine().Index()
		} else {
			st.u = r.Step
		}
		st.hiLine = oldest
	}
	s.armed = append(s.armed[:0], armedQuery{q: &q, slot: -1, hi: st.hiLine})
	defer s.disarm()
	stop := func(int64, engine.StepInfo) bool {
		defer s.clearHits()
		return s.armed[0].hit
	}
	found, next, err := s.tl.ReverseSearch(st.u, stop, pause)
	if err != nil {
		return Found{}, true, err
	}
	if next > 0 {
		st.u = next
		return Found{}, false, nil
	}
	if found < 0 {
		_, err := s.tl.Goto(st.home)
		return Found{}, true, err
	}
	// Land on the step found and read its last matching line.
	if _, err := s.tl.Goto(found - 1); err != nil {
		return Found{}, true, err
	}
	s.armed[0].hit, s.armed[0].first, s.armed[0].last = false, 0, 0
	s.tl.Step()
	return Found{Line: s.armed[0].last, Step: found}, true, nil
}

// GotoRecord moves to the step that emitted record line n (the first step
// after which the run has n records), or to the last step when the run
// has fewer; it reports false when pause interrupted it.
func (s *Session) GotoRecord(n int64, pause Pause) (finished bool, err error) {
	if r, ok := s.Record(n); ok {
		_, err := s.tl.Goto(r.Step)
		return true, err
	}
	if s.tl.Engine().Records() >= n {
		if err := s.RewindBefore(n); err != nil {
			return true, err
		}
	}
	if e := s.tl.Engine(); e.Records() < n && !e.Done() {
		s.Forward(nil, func(engine.StepInfo) bool { return s.tl.Engine().Records() >= n }, pause)
	}
	e := s.tl.Engine()
	return e.Records() >= n || e.Done(), nil
}
