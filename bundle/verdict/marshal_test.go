package verdict

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/scenarios"
)

// goldenRun has one assertion of every kind over the planted flap of
// flapWhileAcked, with a few more records for the counting kinds.
func goldenRun() (*stream, []scenarios.Assertion) {
	s := &stream{}
	flapWhileAcked(s)
	s.bump(14*sec+ms, "c", 0, 2)
	s.message(15*sec, "a", "message_sent", "ping", 120)
	s.other(16*sec, "drop_on_send")
	s.other(16*sec, "drop_on_send")
	abc := peers("a", "b", "c")
	return s, []scenarios.Assertion{
		{Name: "alive at 5s", Kind: "all_alive_at", Params: swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: abc}},
		{Name: "alive throughout", Kind: "all_alive_throughout", Params: swimcheck.AllAliveThroughout{WindowStartNs: int64(0), WindowEndNs: 20 * sec, Peers: abc}},
		{Name: "converges", Kind: "convergence_after", Params: swimcheck.ConvergenceAfter{AfterNs: 15 * sec, WithinNs: 2 * sec, Peers: abc}},
		{Name: "no flap <c>", Kind: "no_flap_while_probes_ok", Params: swimcheck.NoFlapWhileProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 20 * sec}},
		{Name: "no dead c", Kind: "no_dead_when_probes_ok", Params: swimcheck.NoDeadWhenProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 20 * sec}},
		{Name: "c incarnation", Kind: "self_incarnation_bounded", Params: swimcheck.SelfIncarnationBounded{Peer: "c", MaxValue: int64(5)}},
		{Name: "ping size", Kind: "message_size_bounded", Params: swimcheck.MessageSizeBounded{MessageKind: "ping", MaxBytes: int64(100)}},
		{Name: "c comes back", Kind: "dead_peer_resurrects_within", Params: swimcheck.DeadPeerResurrectsWithin{Peer: "c", AfterNs: int64(0), WithinNs: sec}},
		{Name: "drops", Kind: "event_count", Params: scenarios.EventCount{EventType: "drop_on_send", Max: int64(5)}},
		{Name: "drop rate", Kind: "event_rate", Params: scenarios.EventRate{EventType: "drop_on_send", WindowNs: sec, MaxPerWindow: int64(1)}},
	}
}

func TestMarshal_Golden_10_2(t *testing.T) {
	s, as := goldenRun()
	_, vs := judge(t, s, 20*sec, as...)
	got := Marshal(vs)
	if !bytes.Equal(got, Marshal(vs)) {
		t.Fatal("Marshal is not deterministic")
	}
	golden.Check(t, filepath.Join("testdata", "verdicts.golden.json"), got)
}

func TestMarshal_EmptyFieldsAreStillPresent(t *testing.T) {
	got := string(Marshal([]Verdict{{Name: "n", Kind: "event_count", Outcome: Pass, Reason: "r"}}))
	want := `[
  {
    "name": "n",
    "kind": "event_count",
    "parameters": {},
    "outcome": "Pass",
    "evidence": [],
    "reason": "r"
  }
]
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := string(Marshal(nil)); got != "[]\n" {
		t.Fatalf("no verdicts: %q", got)
	}
}

func TestMarshal_UnencodableParameterIsWrittenAsText(t *testing.T) {
	got := Marshal([]Verdict{{Name: "n", Kind: "k", Parameters: map[string]any{"f": func() {}, "n": int64(1)}, Outcome: Pass}})
	if !bytes.Contains(got, []byte(`"n": "1"`)) {
		t.Fatalf("got %s", got)
	}
}
