package engine

import "sort"

// Timeline gives an engine reverse execution the way rr's ReplayTimeline
// does: the seed is the recording, checkpoints are only a cache. Going to
// step i restores the nearest checkpoint at or before i and re-executes
// forward; with no checkpoint it rebuilds the engine from the seed.
//
// Checkpoints are taken every `every` steps as execution passes them and
// thinned so that their spacing grows with distance from the furthest
// point reached: dense where the user is working, sparse far back, at
// most maxCheckpoints in all. A step back near the frontier therefore
// re-executes fewer than `every` steps however long the run.
type Timeline struct {
	fresh    func() (*Engine, error)
	e        *Engine
	every    int64         // checkpoint every this many steps; 0 = never
	max      int           // thin beyond this many checkpoints
	cps      []*Checkpoint // ascending by index
	frontier int64         // furthest index ever reached
}

// DefaultCheckpointEvery and DefaultMaxCheckpoints suit interactive use:
// a checkpoint costs a copy of every host, so a few hundred of them stay
// small, and a thousand steps re-execute in well under a millisecond.
const (
	DefaultCheckpointEvery = 1000
	DefaultMaxCheckpoints  = 256
)

// NewTimeline builds a timeline over engines made by fresh, which must
// return a new engine at step 0 for the same scenario and seed each time
// (and without a Writer: checkpoints cannot take back records on disk).
// A checkpoint is kept every `every` steps (0: never; every Goto back then
// re-executes from the seed).
func NewTimeline(fresh func() (*Engine, error), every int64) (*Timeline, error) {
	e, err := fresh()
	if err != nil {
		return nil, err
	}
	return &Timeline{fresh: fresh, e: e, every: every, max: DefaultMaxCheckpoints}, nil
}

// Engine returns the engine at the timeline's current position. It may be
// replaced by Goto and the reverse searches; do not keep it across calls.
func (t *Timeline) Engine() *Engine { return t.e }

// Checkpoints reports how many checkpoints the timeline holds.
func (t *Timeline) Checkpoints() int { return len(t.cps) }

// Mark is where one checkpoint sits: its step index, the virtual time of
// its last dispatched entry and the event records emitted by then.
type Mark struct {
	Index   int64
	Now     int64
	Records int64
}

// Marks returns every checkpoint's position, ascending by index, so a
// caller can pick where to start re-executing from: the latest checkpoint
// before a virtual time, or before a record it needs written again.
func (t *Timeline) Marks() []Mark {
	out := make([]Mark, len(t.cps))
	for i, c := range t.cps {
		out[i] = Mark{Index: c.st.steps, Now: c.st.now, Records: c.st.records}
	}
	return out
}

// Step advances one step, checkpointing first when the current index is a
// multiple of the interval and not yet saved.
func (t *Timeline) Step() StepInfo {
	t.maybeCheckpoint()
	info := t.e.Step()
	if info.Index > t.frontier {
		t.frontier = info.Index
	}
	return info
}

func (t *Timeline) maybeCheckpoint() {
	if t.every <= 0 || t.e.Done() {
		return
	}
	i := t.e.Index()
	if i%t.every != 0 {
		return
	}
	k := sort.Search(len(t.cps), func(j int) bool { return t.cps[j].Index() >= i })
	if k < len(t.cps) && t.cps[k].Index() == i {
		return
	}
	t.cps = append(t.cps, nil)
	copy(t.cps[k+1:], t.cps[k:])
	t.cps[k] = t.e.Checkpoint()
	if len(t.cps) > t.max {
		t.thin()
	}
}

// thin drops the checkpoint whose neighbours are closest together relative
// to its distance behind the frontier. Repeated, this leaves spacing that
// grows with age — log-spaced, as rr keeps its marks. The first and the
// last checkpoints always stay.
func (t *Timeline) thin() {
	best, bestGap, bestAge := -1, int64(0), int64(1)
	for j := 1; j < len(t.cps)-1; j++ {
		gap := t.cps[j+1].Index() - t.cps[j-1].Index()
		age := t.frontier - t.cps[j].Index() + 1
		if age < 1 {
			age = 1
		}
		// Smallest gap/age wins; compare by cross-multiplication in integers.
		if best < 0 || gap*bestAge < bestGap*age {
			best, bestGap, bestAge = j, gap, age
		}
	}
	if best > 0 {
		t.cps = append(t.cps[:best], t.cps[best+1:]...)
	}
}

// Goto moves to step index i (clamped to [0, end of run]) and returns the
// index reached, which is less than i only when the run ended first.
func (t *Timeline) Goto(i int64) (int64, error) {
	if i < 0 {
		i = 0
	}
	if i < t.e.Index() {
		if err := t.rewind(i); err != nil {
			return t.e.Index(), err
		}
	}
	for t.e.Index() < i && !t.e.Done() {
		t.Step()
	}
	return t.e.Index(), nil
}

// Back steps one step backwards.
func (t *Timeline) Back() (int64, error) { return t.Goto(t.e.Index() - 1) }

// StopFunc decides, right after a step Continue or a reverse search
// dispatched, whether the search stops at that step: prevNow is the
// virtual time before the step, info what it did. A caller's breakpoints
// are a StopFunc.
type StopFunc func(prevNow int64, info StepInfo) bool

// Continue steps forward until stop reports true for a step (a breakpoint
// hit), the run ends, or budget steps have run, so a caller can keep a
// long continue interruptible. It reports whether stop fired.
func (t *Timeline) Continue(stop StopFunc, budget int) (StepInfo, bool) {
	var info StepInfo
	for n := 0; n < budget && !t.e.Done(); n++ {
		prevNow := t.e.Now()
		info = t.Step()
		if stop(prevNow, info) {
			return info, true
		}
	}
	return info, false
}

// ReverseContinue moves back to the latest step before the current one
// for which stop reports true (evaluated, as Continue does, right after
// that step is dispatched) and reports whether there was one; with none,
// it stops at step 0. It is ReverseSearch from the step before the
// current one, run to the end, then a move to the hit.
func (t *Timeline) ReverseContinue(stop StopFunc) (bool, error) {
	found, _, err := t.ReverseSearch(t.e.Index()-1, stop, nil)
	if err != nil {
		return false, err
	}
	_, err = t.Goto(max(found, 0))
	return found >= 0, err
}

// ReverseSearch looks for the latest step at or before u (the latest step
// that may hit) for which stop reports true, the way rr reverse-continues:
// it restores the nearest checkpoint before u and re-executes up to u with
// stop checked at every step and nothing else done; if no step there hit,
// it searches the interval before, and so on back to step 1.
//
// It returns the step found, or -1 when none is at or before u; the
// engine is then somewhere at or before u, not on the hit: the caller goes
// where it wants (Goto(found), or the step before it to see what the hit
// changed). When pause (nil: never) reports true after an interval came
// up clear, the search stops there with next > 0, the u to resume from,
// and found -1; a finished search returns next 0.
func (t *Timeline) ReverseSearch(u int64, stop StopFunc, pause func() bool) (found, next int64, err error) {
	for u >= 1 {
		if err := t.rewind(u - 1); err != nil { // the state just before step u, or earlier
			return -1, 0, err
		}
		c := t.e.Index()
		hit := int64(-1)
		for t.e.Index() < u && !t.e.Done() {
			prevNow := t.e.Now()
			if info := t.Step(); stop(prevNow, info) {
				hit = info.Index
			}
		}
		if hit >= 0 {
			return hit, 0, nil
		}
		u = c // steps c+1..u are clear; search the interval before
		if u >= 1 && pause != nil && pause() {
			if _, err := t.Goto(c); err != nil {
				return -1, 0, err
			}
			return -1, u, nil
		}
	}
	return -1, 0, nil
}

// rewind puts the engine at the latest checkpoint at or before i, or at a
// fresh engine from the seed when there is none.
func (t *Timeline) rewind(i int64) error {
	k := sort.Search(len(t.cps), func(j int) bool { return t.cps[j].Index() > i })
	if k == 0 {
		e, err := t.fresh()
		if err != nil {
			return err
		}
		t.e = e
		return nil
	}
	t.e.Restore(t.cps[k-1])
	return nil
}
