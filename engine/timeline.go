package engine

import (
	"slices"
	"sort"
)

// Timeline gives an engine reverse execution the way rr's ReplayTimeline
// does: the seed is the recording, checkpoints are only a cache. Going to
// step i restores the nearest checkpoint at or before i and re-executes
// forward; with no checkpoint it rebuilds the engine from the seed.
//
// The cache is held within a byte budget (each checkpoint's size is
// estimated before it is taken, ApproxCheckpointBytes) and at most
// DefaultMaxCheckpoints checkpoints. Where they go:
//
//   - As execution passes a point at least `every` steps after the
//     nearest checkpoint behind it, and after at least as much work as the
//     checkpoint would cost to copy (work = steps + records; a checkpoint
//     costs its estimated bytes / CheckpointBytesPerUnit), a checkpoint is
//     taken. Copying a thousand hosts costs as much as ~100 000 of their
//     steps, so this keeps checkpointing a bounded share of a continue
//     however big the hosts are, while small runs checkpoint every `every`
//     steps.
//   - A Goto backwards that re-executes further than 2·every steps also
//     checkpoints `every` steps short of its target, so the next step
//     back re-executes at most that far, and halfway there when it is
//     further than 5·every, so the walk back past that checkpoint
//     re-executes half as far, and so on (rr's bisection).
//   - When the budget or the count is full, the checkpoint whose
//     neighbours are closest together relative to its distance from the
//     position is evicted (the new one included: it is not taken when it
//     is that one). Repeated, this keeps checkpoints dense around the
//     position and log-spaced further out, as rr keeps its marks. An
//     evicted checkpoint is re-derived by re-executing from the nearest
//     kept one before it, or from the seed.
//   - A checkpoint larger than the whole budget is not taken: the timeline
//     then runs without (every Goto back re-executes from the seed) and
//     CheckpointUse says so, with the size that did not fit.
type Timeline struct {
	fresh  func() (*Engine, error)
	e      *Engine
	every  int64         // checkpoints at least this many steps apart; 0 = never
	budget int64         // bytes the checkpoints may hold together; 0 = none
	max    int           // at most this many checkpoints
	cps    []*Checkpoint // ascending by index
	held   int64         // their estimated bytes
	// base is where the latest checkpoint at or before the position was
	// taken, or the latest refused attempt, or step 0: work counts from it.
	base     Mark
	lastSize int64 // the latest checkpoint estimate
	refused  int64 // the estimate that exceeded the whole budget; 0 once one fits
}

// DefaultCheckpointEvery and DefaultMaxCheckpoints suit interactive use:
// a thousand steps of a small run re-execute in well under a millisecond,
// and a few hundred small checkpoints are cheap to keep.
const (
	DefaultCheckpointEvery = 1000
	DefaultMaxCheckpoints  = 256
)

// DefaultCheckpointBudget is how many bytes of checkpoints a timeline
// holds unless told otherwise (SetBudget): 384 MiB, four checkpoints of a
// thousand SWIM hosts of a thousand members (~100 MB each). Checkpoints
// are live heap, and the garbage collector lets the heap grow to about
// twice what is live while every step back copies one (the old state
// becomes garbage): at 512 MiB a session on that run reached 1.6 GB of
// heap, at 384 MiB 1.2 GB (docs/BENCHMARKS.md).
const DefaultCheckpointBudget = 384 << 20

// CheckpointBytesPerUnit converts a checkpoint's bytes to the work
// (steps + records) it must be apart from the previous one: copying a
// byte costs about a nanosecond and a unit of work about half a
// microsecond on the 1000-host benchmark, so at 128 bytes per unit
// checkpoints take about a quarter of the time spent executing.
const CheckpointBytesPerUnit = 128

// NewTimeline builds a timeline over engines made by fresh, which must
// return a new engine at step 0 for the same scenario and seed each time
// (and without a Writer: checkpoints cannot take back records on disk).
// Checkpoints are kept at least `every` steps apart (0: never; every Goto
// back then re-executes from the seed) within DefaultCheckpointBudget.
func NewTimeline(fresh func() (*Engine, error), every int64) (*Timeline, error) {
	e, err := fresh()
	if err != nil {
		return nil, err
	}
	return &Timeline{fresh: fresh, e: e, every: every, budget: DefaultCheckpointBudget, max: DefaultMaxCheckpoints}, nil
}

// SetBudget sets how many bytes the checkpoints may hold together (0 or
// less: none are kept) and evicts until they fit.
func (t *Timeline) SetBudget(bytes int64) {
	t.budget = max(bytes, 0)
	t.refused = 0
	for len(t.cps) > 0 && t.held > t.budget {
		t.drop(t.victim(-1, t.e.Index()))
	}
	t.rebase()
}

// CheckpointUse is how the timeline's checkpoint cache stands.
type CheckpointUse struct {
	Count  int
	Bytes  int64 // their estimated size together
	Budget int64
	// Refused is the estimated size of the latest checkpoint not taken
	// because it alone exceeds the budget; 0 when none was refused since
	// the last one taken. While it is set the timeline runs without
	// checkpoints and re-executes from the seed.
	Refused int64
}

// CheckpointUse reports the checkpoint cache's state.
func (t *Timeline) CheckpointUse() CheckpointUse {
	return CheckpointUse{Count: len(t.cps), Bytes: t.held, Budget: t.budget, Refused: t.refused}
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

func markOf(c *Checkpoint) Mark { return Mark{Index: c.st.steps, Now: c.st.now, Records: c.st.records} }

// Marks returns every checkpoint's position, ascending by index, so a
// caller can pick where to start re-executing from: the latest checkpoint
// before a virtual time, or before a record it needs written again.
func (t *Timeline) Marks() []Mark {
	out := make([]Mark, len(t.cps))
	for i, c := range t.cps {
		out[i] = markOf(c)
	}
	return out
}

// Step advances one step, checkpointing first when the current position
// is due one (see Timeline).
func (t *Timeline) Step() StepInfo {
	if t.due() {
		t.take(t.e.Index())
	}
	return t.e.Step()
}

// due reports whether the position is far enough past base, in steps and
// in work, for a checkpoint.
func (t *Timeline) due() bool {
	if t.every <= 0 || t.budget <= 0 || t.e.Done() {
		return false
	}
	steps := t.e.st.steps - t.base.Index
	if steps < t.every {
		return false
	}
	return steps+t.e.st.records-t.base.Records >= t.lastSize/CheckpointBytesPerUnit
}

// take checkpoints the current position unless it is already one, making
// room by eviction with the position cursor in mind; it records a refusal
// when the checkpoint alone would exceed the budget.
func (t *Timeline) take(cursor int64) {
	if t.e.Done() {
		return
	}
	i := t.e.Index()
	k := sort.Search(len(t.cps), func(j int) bool { return t.cps[j].Index() >= i })
	if k < len(t.cps) && t.cps[k].Index() == i {
		return
	}
	size := t.e.ApproxCheckpointBytes()
	t.lastSize = size
	here := Mark{Index: i, Now: t.e.st.now, Records: t.e.st.records}
	if size > t.budget {
		t.refused = size
		t.base = here // try again only after as much work again
		return
	}
	for t.held+size > t.budget || len(t.cps) >= t.max {
		v := t.victim(i, cursor)
		if v < 0 {
			t.base = here
			return
		}
		t.drop(v)
	}
	c := t.e.checkpoint(size)
	k = sort.Search(len(t.cps), func(j int) bool { return t.cps[j].Index() >= i })
	t.cps = append(t.cps, nil)
	copy(t.cps[k+1:], t.cps[k:])
	t.cps[k] = c
	t.held += size
	t.refused = 0
	t.base = here
}

// victim picks the checkpoint to evict: the one whose neighbours are
// closest together relative to its distance from cursor (checkpoints past
// the cursor count double the distance: they only speed up going
// forward). cand, when not -1, is the index of a checkpoint about to be
// taken, which competes too; victim returns -1 when it loses. The
// latest checkpoint at or before the cursor is never the victim: it is
// what the next step back restores.
func (t *Timeline) victim(cand, cursor int64) int {
	type at struct {
		idx int64
		pos int // in t.cps; -1 for the candidate
	}
	list := make([]at, 0, len(t.cps)+1)
	for j, c := range t.cps {
		list = append(list, at{c.Index(), j})
	}
	if cand >= 0 {
		k := sort.Search(len(list), func(j int) bool { return list[j].idx > cand })
		list = slices.Insert(list, k, at{cand, -1})
	}
	keep := -2 // the latest at or before the cursor
	for _, a := range list {
		if a.idx <= cursor {
			keep = a.pos
		}
	}
	best, bestGap, bestDist := -2, int64(0), int64(1)
	for j, a := range list {
		if a.pos == keep {
			continue
		}
		prev := int64(0)
		if j > 0 {
			prev = list[j-1].idx
		}
		next := a.idx + (a.idx - prev) // the last: as if its spacing went on
		if j+1 < len(list) {
			next = list[j+1].idx
		}
		gap := next - prev
		dist := a.idx - cursor
		if dist < 0 {
			dist = -dist
		} else {
			dist *= 2
		}
		dist++
		// Smallest gap/dist wins; compare by cross-multiplication in integers.
		if best == -2 || gap*bestDist < bestGap*dist {
			best, bestGap, bestDist = a.pos, gap, dist
		}
	}
	if best == -2 {
		// Only the kept one is left: evict it if it is an old one (the
		// budget shrank), keep it if it is the candidate.
		return max(keep, -1)
	}
	return best
}

// drop evicts checkpoint j.
func (t *Timeline) drop(j int) {
	t.held -= t.cps[j].bytes
	t.cps = append(t.cps[:j], t.cps[j+1:]...)
	t.rebase()
}

// rebase recomputes base from the checkpoints after the position or the
// list changed.
func (t *Timeline) rebase() {
	i := t.e.Index()
	k := sort.Search(len(t.cps), func(j int) bool { return t.cps[j].Index() > i })
	if k == 0 {
		if t.base.Index > i {
			t.base = Mark{}
		}
		return
	}
	if m := markOf(t.cps[k-1]); m.Index > t.base.Index || t.base.Index > i {
		t.base = m
	}
}

// Goto moves to step index i (clamped to [0, end of run]) and returns the
// index reached, which is less than i only when the run ended first.
// Going back more than 2·every steps past the checkpoint it restores, it
// also checkpoints `every` steps short of i (Timeline).
func (t *Timeline) Goto(i int64) (int64, error) {
	if i < 0 {
		i = 0
	}
	if i < t.e.Index() {
		if err := t.rewind(i); err != nil {
			return t.e.Index(), err
		}
		if near := i - t.every; t.every > 0 && t.budget > 0 && near-t.e.Index() > t.every {
			// Re-executing far: leave a checkpoint just short of i, and
			// one halfway when it is further still, so walking back
			// step by step re-executes far less and less often.
			if far := near - t.e.Index(); far > 4*t.every {
				t.runTo(t.e.Index() + far/2)
				t.take(i)
			}
			t.runTo(near)
			t.take(i)
		}
	}
	for t.e.Index() < i && !t.e.Done() {
		t.Step()
	}
	return t.e.Index(), nil
}

// runTo steps to index i or the end of the run.
func (t *Timeline) runTo(i int64) {
	for t.e.Index() < i && !t.e.Done() {
		t.Step()
	}
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
// fresh engine from the seed when there is none. It returns an error only
// for the signature's sake: a fresh engine that fails to build after
// building once panics.
func (t *Timeline) rewind(i int64) error {
	k := sort.Search(len(t.cps), func(j int) bool { return t.cps[j].Index() > i })
	if k == 0 {
		// Let the current run go before the new one is built, so the
		// two need never share the heap. fresh built this run once
		// already and is deterministic: failing now is a bug.
		t.e = nil
		e, err := t.fresh()
		if err != nil {
			panic("engine: rebuilding a run from its seed failed after it had succeeded once: " + err.Error())
		}
		t.e = e
		t.rebase()
		return nil
	}
	t.e.Restore(t.cps[k-1])
	t.rebase()
	return nil
}
