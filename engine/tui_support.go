package engine

// This file holds the read-only views the terminal stepper needs beyond
// the stepping API: one host at a time (so a frame over a hundred hosts
// snapshots only the rows on screen), the entry the last step dispatched,
// and where each timeline checkpoint sits in virtual time and records (so
// the stepper can go to a virtual time or refill its event-log cache
// without re-executing from the seed).

// HostAt returns host i's view, i indexing Peers(). Unlike Hosts it
// snapshots only that host.
func (e *Engine) HostAt(i int) HostView {
	s := &e.st.hosts[i]
	v := HostView{ID: s.id, Kind: s.kind.Tag, State: s.state.String(), TickHalted: s.tickHalted, RecvHalted: s.recvHalted, Lives: s.lives}
	if s.h != nil {
		v.Snapshot = s.h.Snapshot()
	}
	return v
}

// LastStep describes the entry the latest step dispatched, as Step
// reported it, except Records, which is not kept (0). At step 0 Kind is "".
func (e *Engine) LastStep() StepInfo {
	info := StepInfo{Index: e.st.steps, At: e.st.now, Done: e.st.done}
	if e.st.steps == 0 {
		return info
	}
	info.Kind = e.st.lastKind.String()
	if e.st.lastHost >= 0 {
		info.Host = e.peers[e.st.lastHost]
	}
	return info
}

// Mark is where one timeline checkpoint sits: its step index, the virtual
// time of its last dispatched entry and the event records emitted by then.
type Mark struct {
	Index   int64
	Now     int64
	Records int64
}

// Marks returns every checkpoint's position, ascending by index.
func (t *Timeline) Marks() []Mark {
	out := make([]Mark, len(t.cps))
	for i, c := range t.cps {
		out[i] = Mark{Index: c.st.steps, Now: c.st.now, Records: c.st.records}
	}
	return out
}
