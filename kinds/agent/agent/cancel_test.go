package agent_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
)

// TestAgent_CancelAtEveryBoundary is seed 000's "cancellation at every
// chunk boundary", exhaustively for one episode: faults_base with a 503
// on the first attempt (so the episode has a backoff), cancelled once
// per run at every instant something reaches the agent — each frame of
// each stream, each tool result, each deadline and the backoff's end —
// just before it and just after it. Every run must keep every oracle of
// faults_base, and the cancellations must land in every phase: calling
// (at chunk boundaries), backoff, tools, and after the episode ended.
// A Cancel drawn at random (the agent_faults sweep) never landed in a
// backoff: a backoff lasts under a second of a 300 s run.
func TestAgent_CancelAtEveryBoundary(t *testing.T) {
	src, err := os.ReadFile("library/agent/faults_base.toml")
	if err != nil {
		t.Fatal(err)
	}
	base := strings.Replace(string(src), "step = \"plan\"\n", "step = \"plan\"\nfault = { kind = \"server_error\", status = 503 }\n", 1)

	// One run without a cancel: the instants the agent is called at.
	e, err := engine.New(parse(t, base), builtin.Registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var at []int64
	for !e.Done() {
		s := e.Step()
		if s.Host == "agent" && (s.Kind == "Deliver" || s.Kind == "Timer") {
			at = append(at, s.At, s.At+1)
		}
	}
	slices.Sort(at)
	at = append(at, at[len(at)-1]+1_000_000_000) // after the episode ended
	at = slices.Compact(at)

	phases := map[string]int{}
	for _, t0 := range at {
		sc := parse(t, base+"\n[[mutations]]\nat_ns = "+strconv.FormatInt(t0, 10)+"\nkind = \"Cancel\"\npeer = \"agent\"\n")
		for _, v := range verdicts(t, sc) {
			if v.Outcome != verdict.Pass {
				t.Errorf("cancel at %d ns: %s %s: %s", t0, v.Name, v.Outcome, v.Reason)
			}
		}
		ep := run(t, sc)
		req := ep.of("cancel_requested")
		if len(req) != 1 || len(ep.of("cancel_settled")) != 1 {
			t.Fatalf("cancel at %d ns: cancel_requested %q, cancel_settled %q", t0, req, ep.of("cancel_settled"))
		}
		phases[field(req[0], "phase")]++
	}
	t.Logf("%d cancellations by phase: %v", len(at), phases)
	for _, p := range []string{"calling", "backoff", "tools", "done"} {
		if phases[p] == 0 {
			t.Errorf("no cancellation landed in phase %s: %v", p, phases)
		}
	}
	if phases["calling"] < 30 {
		t.Errorf("%d cancellations while calling: the chunk boundaries were not all tried", phases["calling"])
	}
}
