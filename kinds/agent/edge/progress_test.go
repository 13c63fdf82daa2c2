package edge

import (
	"encoding/json"
	"testing"

	"github.com/detsim/detsim/network"
)

// TestAnchors: an instant inside the reference episode fires after the
// request or tool run before it, by the time between them; one before
// any step from the start; one past the episode's end at the same
// fraction of its steps; a restart after its kill.
func TestAnchors(t *testing.T) {
	steps := []step{{at: 100}, {at: 300, tool: true}, {at: 500}, {at: 700}}
	ctl := []network.Mutation{
		{Kind: network.Cancel, At: 50},
		{Kind: network.Cancel, At: 350},
		{Kind: network.PeerKill, At: 600},
		{Kind: network.PeerResurrect, At: 5600},
		{Kind: network.Cancel, At: 7_500}, // past the end (800), 3/4 of the duration
	}
	got := anchors(ctl, steps, 800, 10_000)
	want := []anchor{{On: "start", Delay: 50}, {On: "tool_use", N: 1, Delay: 50}, {On: "request", N: 2, Delay: 100},
		{On: "after", N: 3, Delay: 5000}, {On: "fraction", N: 4}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("control %d (%v at %d): %+v, want %+v", i, ctl[i].Kind, ctl[i].At, got[i], want[i])
		}
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
		resp, err := keyedGet(base + "/control")
		if err != nil {
			t.Fatal(err)
		}
		var ctl struct {
			Events []controlEvent `json:"events"`
		}
		json.NewDecoder(resp.Body).Decode(&ctl)
		resp.Body.Close()
		if len(ctl.Events) != 0 {
			t.Fatalf("the Cancel fired before request %d: %+v", turn, ctl.Events)
		}
		msgs := `[{"role":"user","content":"hi"}`
		if turn == 2 {
			msgs += `,{"role":"assistant","content":"x"},{"role":"user","content":"go on"}`
		}
		post(t, base+"/v1/messages", `{"messages":`+msgs+`]}`)
	}
	resp, err := keyedGet(base + "/control?wait=30")
	if err != nil {
		t.Fatal(err)
	}
	var ctl struct {
		Events []controlEvent `json:"events"`
	}
	json.NewDecoder(resp.Body).Decode(&ctl)
	resp.Body.Close()
	if len(ctl.Events) != 1 || ctl.Events[0].Action != "cancel" || ctl.Events[0].AtNs >= 200_000_000_000 || ctl.Events[0].On == "" {
		t.Fatalf("control %+v, want the Cancel fired at the agent's progress", ctl)
	}
	r.stop()
}
