package edge

import (
	"flag"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/property"
)

// TestAnchors: an instant inside the reference episode fires after the
// request or tool run before it, by the time between them; one before
// any step from the start; one past the episode's end where it falls in
// the part of its span past the end, as a fraction of the steps; a
// restart after its kill.
func TestAnchors(t *testing.T) {
	steps := []step{{at: 100}, {at: 300, tool: true}, {at: 500}, {at: 700}}
	ctl := []network.Mutation{
		{Kind: network.Cancel, At: 50},
		{Kind: network.Cancel, At: 350},
		{Kind: network.PeerKill, At: 600},
		{Kind: network.PeerResurrect, At: 5600},
		{Kind: network.Cancel, At: 7_500}, // past the end (800), 6700 of the 9200 left of a written scenario's 10 000
	}
	got := anchors(ctl, steps, 800, Span{0, 10_000})
	want := []anchor{{On: "start", Delay: 50}, {On: "tool_use", N: 1, Delay: 50}, {On: "request", N: 2, Delay: 100},
		{On: "after", N: 3, Delay: 5000}, {On: "fraction", N: 3}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("control %d (%v at %d): %+v, want %+v", i, ctl[i].Kind, ctl[i].At, got[i], want[i])
		}
	}
}

// TestAnchors_SpreadOverTheDrawnSpan: agent_faults draws its kills in
// 0.1–40 s of a 300 s scenario; a built-in agent's episode of six steps
// ends at 5 s. A kill past that end lands where it falls in the 5–40 s
// left of the draw: at 30 s the 5th of the 6 steps, after turn 1
// committed, so an agent that re-asks turn 1 after its restart is seen
// doing it. Before, the fraction was of the 300 s duration, and every
// kill drawn there landed on the first step (issue 31:
// restart_from_scratch was caught on one seed of 21).
func TestAnchors_SpreadOverTheDrawnSpan(t *testing.T) {
	const s = int64(1_000_000_000)
	steps := []step{{at: s / 10}, {at: s, tool: true}, {at: 2 * s}, {at: 3 * s, tool: true}, {at: 4 * s}, {at: 4*s + s/2}}
	drawn := Span{s / 10, 40 * s}
	for _, c := range []struct {
		at   int64
		span Span
		want int
	}{
		{5*s + s/2, drawn, 1},         // just past the end: the first step
		{15 * s, drawn, 2},            // 10 of the 35 s left: 1.7 of 6 steps
		{22*s + s/2, drawn, 4},        // half way
		{30 * s, drawn, 5},            // 25 of 35: 4.3 of 6
		{39*s + s/2, drawn, 6},        // the end of the draw: the last step
		{44 * s, drawn, 6},            // past it (a restart not after its kill): the last step
		{30 * s, Span{0, 300 * s}, 1}, // the same kill placed in a written scenario's duration
	} {
		ctl := []network.Mutation{{Kind: network.PeerKill, At: c.at}, {Kind: network.PeerResurrect, At: c.at + 5*s}}
		got := anchors(ctl, steps, 5*s, c.span)
		if want := (anchor{On: "fraction", N: c.want}); got[0] != want || got[1] != (anchor{On: "after", N: 1, Delay: 5 * s}) {
			t.Errorf("kill at %v in %v: %+v, want %+v then the restart after it", time.Duration(c.at), c.span, got, want)
		}
	}
}

// TestDrawSpan: agent_faults draws its Cancel and its kill (the restart
// follows it by after_ns) in 0.1–40 s; the edge serving one of its seeds,
// by the property or by the pinned seed's file, places them in that span.
func TestDrawSpan(t *testing.T) {
	reg := builtin.Registry()
	p, err := property.LoadLibrary("agent_faults", reg)
	if err != nil {
		t.Fatal(err)
	}
	want := Span{100_000_000, 40_000_000_000}
	if got := DrawSpan(p); got != want {
		t.Errorf("agent_faults draws its control instants in %v, want %v", got, want)
	}
	for _, arg := range []string{"agent_faults", "../../../scenarios/regression/agent_faults-38.toml"} {
		fs := flag.NewFlagSet("edge", flag.ContinueOnError)
		fs.Uint64("seed", 38, "")
		if _, _, got, err := resolve(arg, 38, fs, reg); err != nil || got != want {
			t.Errorf("detsim edge %s: span %v (%v), want %v", arg, got, err, want)
		}
	}
	if _, _, got, err := resolve("agent/cancel_mid_tool", 0, flag.NewFlagSet("edge", flag.ContinueOnError), reg); err != nil || got != (Span{}) {
		t.Errorf("a written scenario: span %v (%v), want none (its duration)", got, err)
	}
}

// TestEdge_ControlFiresAtTheAgentsProgress: a Cancel the scenario puts
// long after the built-in agent's episode ended (at 200 s of a 300 s
// scenario; the two turns take a fraction of a second) fires for an
// outside agent once it made its request (the last of the reference
// run's two): under the time schedule it would come 2 s of real time
// later, after any agent finishing in seconds.
func TestEdge_ControlFiresAtTheAgentsProgress(t *testing.T) {
	sc := scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean, "", "[[mutations]]\nat_ns = 200_000_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n")
	var e *Edge
	r := startWith(t, sc, Options{TimeScale: 0.01}, func(x *Edge) { e = x })
	if len(e.anchors) != 1 || e.anchors[0].On != "fraction" {
		t.Fatalf("anchors %+v, want the Cancel at a fraction of the episode", e.anchors)
	}
	base := r.session(t, "a")
	for turn := 1; turn <= e.anchors[0].N; turn++ {
		if ctl := controlOf(t, base+"/control"); len(ctl.Events) != 0 {
			t.Fatalf("the Cancel fired before request %d: %+v", turn, ctl.Events)
		}
		msgs := `[{"role":"user","content":"hi"}`
		if turn == 2 {
			msgs += `,{"role":"assistant","content":"x"},{"role":"user","content":"go on"}`
		}
		post(t, base+"/v1/messages", `{"messages":`+msgs+`]}`)
	}
	ctl := controlOf(t, base+"/control?wait=30")
	if len(ctl.Events) != 1 || ctl.Events[0].Action != "cancel" || ctl.Events[0].AtNs >= 200_000_000_000 || ctl.Events[0].On == "" {
		t.Fatalf("control %+v, want the Cancel fired at the agent's progress", ctl)
	}
	r.stop()
}

// TestAnchors_AgentFaultsKillsLandAfterTurn1: over seeds 1-100 of
// agent_faults, most kills drawn past the built-in agent's episode are
// placed at or after its second model request, when turn 1 is committed
// and a restart that asks it again is caught (docs/agents.md, "Faults
// that meet the agent", has the counts). Placed over the scenario's
// 300 s duration, every one was at the first step.
func TestAnchors_AgentFaultsKillsLandAfterTurn1(t *testing.T) {
	reg := builtin.Registry()
	p, err := property.LoadLibrary("agent_faults", reg)
	if err != nil {
		t.Fatal(err)
	}
	past, late := map[string]int{}, map[string]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		sc, err := p.Scenario(seed, reg)
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(sc, Options{DrawnIn: DrawSpan(p), Out: filepath.Join(t.TempDir(), "out"), Key: "k"})
		if err != nil {
			t.Fatal(err)
		}
		if len(e.control) == 0 {
			continue
		}
		steps, _, err := referenceRun(sc, e.agentID, e.providerID)
		if err != nil {
			t.Fatal(err)
		}
		second, reqs := len(steps)+1, 0
		for i, s := range steps {
			if !s.tool {
				if reqs++; reqs == 2 {
					second = i + 1
				}
			}
		}
		for i, a := range e.anchors {
			if k := e.control[i].Kind.String(); a.On == "fraction" {
				past[k]++
				if a.N >= second {
					late[k]++
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(past)) {
		t.Logf("%s: %d drawn past the built-in agent's episode, %d of them placed at or after its second model request", k, past[k], late[k])
	}
	if kills := past["PeerKill"]; kills == 0 || 2*late["PeerKill"] <= kills {
		t.Errorf("%d of %d kills past the episode placed after turn 1, want most", late["PeerKill"], kills)
	}
}
