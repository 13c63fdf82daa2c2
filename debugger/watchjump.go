package debugger

// WatchState carries a WatchChange across pauses: which of its searches
// it is in, and what the earlier ones found.
type WatchState struct {
	started bool
	phase   int
	search  SearchState
	cur     string // the value at the starting point
	anchor  int64  // the record the current phase searches from
	home    int64  // the step it started from, where a miss returns
}

// WatchChange finds the next (forward) or previous change of w's value
// from record line from, over the whole run: the record that set the
// value to something other than it held before (the first record that
// sets it at all counts as a change, from ""). It is made of whole-run
// searches (Search), so it reaches records not run yet and, backwards,
// re-executes earlier checkpoint intervals; like Search it ends at the
// step of what it found, or where it started when nothing is found
// (c.Line 0). pause interrupts it (finished false): call again with the
// same arguments and state.
//
// Forward, the value at from is the one the latest record at or before
// it set; the next change is the first later record setting another.
// Backward, the previous change is the record at which the value became
// what the latest record before from set: after the last record setting
// anything else, the first record setting it.
func (s *Session) WatchChange(w Watch, from int64, forward bool, st *WatchState, pause Pause) (c Change, finished bool, err error) {
	if !st.started {
		*st = WatchState{started: true, home: s.tl.Engine().Index()}
	}
	miss := func() (Change, bool, error) {
		_, err := s.tl.Goto(st.home)
		return Change{}, true, err
	}
	if st.phase == 0 && s.tl.Engine().Records() < from {
		// The searches look back from what has run: run to from first.
		if done, err := s.GotoRecord(from, pause); err != nil || !done {
			return Change{}, false, err
		}
	}
	for {
		f, done, err := s.searchPhase(st, pause, func() (Query, int64, bool) {
			switch {
			case st.phase == 0:
				// The value held at from: the latest record at or before
				// it (before it, backward: a change on the cursor itself
				// is not a previous one).
				if forward {
					return w.Query(), from + 1, false
				}
				return w.Query(), from, false
			case forward:
				return w.changedFrom(st.cur), from, true
			case st.phase == 1:
				return w.changedFrom(st.cur), st.anchor, false
			default:
				return w.Query(), st.anchor, true
			}
		})
		if err != nil || !done {
			return Change{}, done, err
		}
		r, _ := s.Record(f.Line)
		v := ""
		if f.Line > 0 {
			v, _ = w.valueOf(r.Bytes)
		}
		switch {
		case st.phase == 0:
			if f.Line == 0 && !forward {
				return miss() // nothing set it before from
			}
			st.cur = v
			if !forward {
				st.anchor = f.Line
			}
		case forward:
			if f.Line == 0 {
				return miss()
			}
			return Change{Line: f.Line, Step: f.Step, At: r.At, Old: st.cur, New: v}, true, nil
		case st.phase == 1:
			if f.Line == 0 {
				// Nothing else before: the value was set first by the
				// first record setting it.
				st.anchor, st.cur = 0, ""
			} else {
				st.anchor, st.cur = f.Line, v
			}
		default:
			if f.Line == 0 {
				return miss()
			}
			return Change{Line: f.Line, Step: f.Step, At: r.At, Old: st.cur, New: v}, true, nil
		}
		st.phase++
		st.search = SearchState{}
	}
}

// searchPhase runs the phase's search: q from line, in direction fwd.
func (s *Session) searchPhase(st *WatchState, pause Pause, phase func() (Query, int64, bool)) (Found, bool, error) {
	q, from, fwd := phase()
	return s.Search(q, from, fwd, &st.search, pause)
}
