package engine

import (
	"testing"

	"github.com/detsim/detsim/scenarios"
)

// freshAt is a fresh run of sc stepped to i, the reference every Goto
// must equal.
func freshAt(t *testing.T, sc *scenarios.Scenario, i int64) *Engine {
	t.Helper()
	ref := mustEngine(t, sc, Options{})
	for ref.Index() < i && !ref.Done() {
		ref.Step()
	}
	return ref
}

func checkAt(t *testing.T, tl *Timeline, sc *scenarios.Scenario, i int64) {
	t.Helper()
	if got, err := tl.Goto(i); err != nil || got != i {
		t.Fatalf("Goto(%d) = %d, %v", i, got, err)
	}
	if ref := freshAt(t, sc, i); tl.Engine().Digest() != ref.Digest() || tl.Engine().Records() != ref.Records() {
		t.Fatalf("Goto(%d): digest %s, a fresh run's %s", i, tl.Engine().Digest(), ref.Digest())
	}
}

// The checkpoints never hold more than the budget, and evicted ones are
// re-derived: every Goto still lands on the fresh-run state.
func TestTimeline_CheckpointsStayWithinTheByteBudget(t *testing.T) {
	sc := meshScenario("echo", 4, lossyPolicy, 20_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 50)
	tl.Goto(3000)
	one := tl.Engine().ApproxCheckpointBytes()
	budget := 5*one + one/2
	tl.SetBudget(budget)
	end, _ := tl.Goto(1 << 40)
	for _, i := range []int64{end - 1, end - 2, end / 2, end/2 - 1, 10, end - 3} {
		checkAt(t, tl, sc, i)
		u := tl.CheckpointUse()
		if u.Bytes > budget || u.Count > 6 || u.Refused != 0 {
			t.Fatalf("after Goto(%d): %+v, budget %d (%d per checkpoint)", i, u, budget, one)
		}
		var sum int64
		for _, c := range tl.cps {
			sum += c.Bytes()
		}
		if sum != u.Bytes {
			t.Fatalf("held %d, the checkpoints add up to %d", u.Bytes, sum)
		}
	}
	if tl.Checkpoints() < 3 {
		t.Fatalf("%d checkpoints kept within room for 5", tl.Checkpoints())
	}
}

// Near the position the checkpoints are dense, further away sparse: after
// going back to the middle of a long run, the nearest checkpoint behind
// the position is at most 2·every steps back, and the spacing grows away
// from it.
func TestTimeline_DenseNearThePositionSparseFarAway(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 60_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 20)
	tl.max = 12
	end, _ := tl.Goto(1 << 40)
	mid := end / 2
	tl.Goto(mid)
	for k := 0; k < 5; k++ { // a few steps back, as `p` does
		tl.Back()
	}
	pos := tl.Engine().Index()
	marks := tl.Marks()
	if len(marks) > 12 {
		t.Fatalf("%d checkpoints, max 12", len(marks))
	}
	behind := int64(-1)
	for _, m := range marks {
		if m.Index <= pos {
			behind = m.Index
		}
	}
	if behind < 0 || pos-behind > 2*20 {
		t.Fatalf("nearest checkpoint behind %d is at %d (marks %v)", pos, behind, marks)
	}
	// The gap between the two checkpoints furthest from the position is
	// wider than the gap at the position.
	near, far := int64(1<<62), int64(0)
	for j := 1; j < len(marks); j++ {
		gap := marks[j].Index - marks[j-1].Index
		if marks[j-1].Index <= pos && pos <= marks[j].Index+2*20 {
			near = min(near, gap)
		}
		far = max(far, gap)
	}
	if near >= far {
		t.Fatalf("spacing near %d is %d, the widest %d: %v", pos, near, far, marks)
	}
	checkAt(t, tl, sc, pos-1)
	checkAt(t, tl, sc, 1)
}

// A checkpoint larger than the whole budget is refused and said so; the
// timeline then re-executes from the seed and stays correct.
func TestTimeline_CheckpointLargerThanTheBudgetIsRefused(t *testing.T) {
	sc := meshScenario("echo", 4, lossyPolicy, 5_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 50)
	tl.SetBudget(64)
	end, _ := tl.Goto(1 << 40)
	u := tl.CheckpointUse()
	if u.Count != 0 || u.Bytes != 0 || u.Refused <= 64 || u.Budget != 64 {
		t.Fatalf("use %+v, want none kept and a refusal larger than 64", u)
	}
	checkAt(t, tl, sc, end/3)
	checkAt(t, tl, sc, end-1)
	// A budget of 0 keeps none and refuses nothing: it is a choice.
	tl.SetBudget(0)
	tl.Goto(end)
	if u := tl.CheckpointUse(); u.Count != 0 || u.Refused != 0 {
		t.Fatalf("budget 0: %+v", u)
	}
}

// Big checkpoints are spaced by their size: the spacing in work (steps +
// records) is at least the checkpoint's bytes / CheckpointBytesPerUnit.
func TestTimeline_BigCheckpointsAreSpacedBySize(t *testing.T) {
	sc := meshScenario("echo", 12, lossyPolicy, 10_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 1)
	tl.Goto(1 << 40)
	prev := Mark{}
	for j, c := range tl.cps {
		m := markOf(c)
		work := m.Index - prev.Index + m.Records - prev.Records
		if j > 0 && work < tl.cps[j-1].Bytes()/CheckpointBytesPerUnit {
			t.Fatalf("checkpoints %d and %d are %d units apart; the first holds %d bytes", prev.Index, m.Index, work, tl.cps[j-1].Bytes())
		}
		prev = m
	}
	if len(tl.cps) < 2 {
		t.Fatalf("%d checkpoints", len(tl.cps))
	}
}
