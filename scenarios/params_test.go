package scenarios

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/kinds/agent/agentcheck"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
)

// everyKind is one valid value of each kind, in catalog order.
func everyKind() []AssertionParams {
	ab := []string{"a", "b"}
	return []AssertionParams{
		swimcheck.AllAliveAt{AtNs: 5, Peers: ab},
		swimcheck.AllAliveThroughout{WindowStartNs: 1, WindowEndNs: 2, Peers: ab},
		swimcheck.ConvergenceAfter{AfterNs: 3, WithinNs: 4, Peers: ab},
		swimcheck.NoFlapWhileProbesOK{Peer: "a", WindowStartNs: 1, WindowEndNs: 2, MaxCycleNs: 12},
		swimcheck.NoDeadWhenProbesOK{Peer: "a", WindowStartNs: 1, WindowEndNs: 2},
		swimcheck.SelfIncarnationBounded{Peer: "a", MaxValue: 7},
		swimcheck.MessageSizeBounded{MessageKind: "ping", MaxBytes: 8},
		swimcheck.DeadPeerResurrectsWithin{Peer: "a", AfterNs: 3, WithinNs: 4},
		EventCount{EventType: "x", Max: 9},
		EventRate{EventType: "x", WindowNs: 10, MaxPerWindow: 11},
		agentcheck.EffectOutcomeOnce{Peer: "a"},
		agentcheck.CancelSettlesWithin{Peer: "a", WithinNs: 12},
		agentcheck.NoTornSuccess{Peer: "a"},
		agentcheck.NoLostAck{Peer: "a"},
		agentcheck.ToolResultMatched{Peer: "a"},
		agentcheck.OutputBounded{Peer: "a", MaxBytes: 13},
		agentcheck.RetryBudget{Peer: "a", MaxAttempts: 14},
		agentcheck.ResponseBounded{Peer: "a", MaxBytes: 15},
		agentcheck.NoCommitAfterSettle{Peer: "a"},
		agentcheck.TurnOutcomeOnce{Peer: "a"},
		agentcheck.ToolRunOnce{Peer: "a"},
		agentcheck.ToolResultReturned{Peer: "a"},
		agentcheck.TurnNotRepeated{Peer: "a"},
		agentcheck.ToolDeadlineKept{Peer: "a", WithinNs: 17},
		agentcheck.NoWorkAfterCancel{Peer: "a", WithinNs: 18},
		rafthost.ElectionSafety{},
		rafthost.LogMatching{},
		rafthost.LeaderCompleteness{},
		rafthost.StateMachineSafety{},
		rafthost.ProposalCommitsWithin{AfterNs: 15, WithinNs: 16},
		rafthost.NoLeaderChange{WindowStartNs: 1, WindowEndNs: 2},
		rafthost.NoRaftPanic{},
		rafthost.CatchesUpAfterHeal{WithinNs: 17},
		rafthost.Linearizable{},
	}
}

// TestParams_OneDefinitionPerKind ties the catalog, the typed structs and
// ParamMap together: each kind's struct is the catalog entry of that
// name, and ParamMap writes exactly the catalog's keys.
func TestParams_OneDefinitionPerKind(t *testing.T) {
	kinds := AssertionKinds(libraryRegistry())
	vals := everyKind()
	if len(kinds) != len(vals) {
		t.Fatalf("%d catalog kinds, %d typed values", len(kinds), len(vals))
	}
	byKind := map[string]AssertionParams{}
	for _, p := range vals {
		byKind[p.Kind()] = p
	}
	for _, k := range kinds {
		p, ok := byKind[k.Kind]
		if !ok {
			t.Errorf("catalog kind %s has no typed value here", k.Kind)
			continue
		}
		a := NewAssertion("n", p)
		if a.Kind != k.Kind {
			t.Errorf("NewAssertion kind %q", a.Kind)
		}
		var keys []string
		for _, prm := range k.Params {
			keys = append(keys, prm.Key)
		}
		m := a.ParamMap()
		for key, v := range m {
			if !slices.Contains(keys, key) {
				t.Errorf("%s: ParamMap has %q, not in the catalog %v", k.Kind, key, keys)
			}
			switch v.(type) {
			case int64, string, []string:
			default:
				t.Errorf("%s.%s: ParamMap value of type %T", k.Kind, key, v)
			}
		}
		if len(m) != len(keys) {
			t.Errorf("%s: ParamMap %v, catalog keys %v", k.Kind, m, keys)
		}
		if err := a.Check(); err != nil {
			t.Errorf("%s: %v", k.Kind, err)
		}
	}
}

func TestParamMap_CopiesPeers(t *testing.T) {
	p := swimcheck.AllAliveAt{AtNs: 1, Peers: []string{"a"}}
	m := NewAssertion("n", p).ParamMap()
	m["peers"].([]string)[0] = "z"
	if p.Peers[0] != "a" {
		t.Fatal("ParamMap shares the assertion's peer list")
	}
	if (Assertion{Kind: "all_alive_at"}).ParamMap() != nil {
		t.Fatal("ParamMap of no parameters is not nil")
	}
}

// TestCheck_RejectsWhatNoScenarioHolds: the checks verdict.New makes on
// assertions built in code, which never met the loader.
func TestCheck_RejectsWhatNoScenarioHolds(t *testing.T) {
	cases := []struct {
		name    string
		a       Assertion
		wantErr string
	}{
		{"no parameters", Assertion{Name: "x", Kind: "event_count"}, "no parameters"},
		{"kind mismatch", Assertion{Name: "x", Kind: "event_rate", Params: EventCount{EventType: "x"}}, "parameters are event_count's"},
		{"a pointer", Assertion{Name: "x", Kind: "event_count", Params: &EventCount{EventType: "x"}}, "parameters of type *scenarios.EventCount"},
		{"a nil pointer", Assertion{Name: "x", Kind: "event_count", Params: (*EventCount)(nil)}, "parameters of type *scenarios.EventCount"},
		{"negative time", NewAssertion("x", swimcheck.AllAliveAt{AtNs: -1, Peers: []string{"a"}}), `parameter "at_ns": must not be negative, got -1`},
		{"negative count", NewAssertion("x", EventCount{EventType: "x", Max: -1}), `parameter "max": must not be negative`},
		{"empty peers", NewAssertion("x", swimcheck.AllAliveAt{AtNs: 1}), `parameter "peers": must name at least one peer`},
		{"empty peer id", NewAssertion("x", swimcheck.ConvergenceAfter{Peers: []string{"a", ""}}), `parameter "peers": element 1 is not a peer id`},
		{"empty peer", NewAssertion("x", swimcheck.SelfIncarnationBounded{MaxValue: 1}), `parameter "peer": must not be empty`},
		{"empty message kind", NewAssertion("x", swimcheck.MessageSizeBounded{}), `parameter "message_kind": must not be empty`},
		{"inverted window", NewAssertion("x", swimcheck.NoDeadWhenProbesOK{Peer: "a", WindowStartNs: 2, WindowEndNs: 1}), `parameter "window_end_ns": 1 is before window_start_ns 2`},
		{"zero rate window", NewAssertion("x", EventRate{EventType: "x"}), `parameter "window_ns": must be at least 1`},
		{"negative rate window", NewAssertion("x", EventRate{EventType: "x", WindowNs: -1}), `parameter "window_ns": must not be negative, got -1`},
		{"overflowing deadline", NewAssertion("x", swimcheck.DeadPeerResurrectsWithin{Peer: "a", AfterNs: 1, WithinNs: math.MaxInt64}), `parameter "within_ns": after_ns + within_ns overflows int64`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Check()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
	// Repeated peers are not an error: the evaluator reads peers as a set.
	if err := NewAssertion("x", swimcheck.AllAliveAt{Peers: []string{"a", "a"}}).Check(); err != nil {
		t.Fatal(err)
	}
}

// TestLoader_AssertionsPassCheck: everything the loader accepts, defaults
// included, is an assertion Check accepts, so verdict.New rejects nothing
// that came from a scenario.
func TestLoader_AssertionsPassCheck(t *testing.T) {
	for _, name := range LibraryNames(testRegistry()) {
		s, err := LoadLibrary(name, libraryRegistry())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range s.Assertions {
			if err := a.Check(); err != nil {
				t.Errorf("%s: %s: %v", name, a.Name, err)
			}
			if a.Params.Kind() != a.Kind {
				t.Errorf("%s: %s: kind %s, parameters of %s", name, a.Name, a.Kind, a.Params.Kind())
			}
		}
	}
}

// TestParse_MaxCycleNs (issue 14 item 6): max_cycle_ns is an optional
// span on no_flap_while_probes_ok: omitted it is 0 (no bound), given it
// is at least 1 and at most the run.
func TestParse_MaxCycleNs(t *testing.T) {
	flap := func(extra string) string {
		return valid + "[[assertions]]\nname = \"f\"\nkind = \"no_flap_while_probes_ok\"\npeer = \"a\"\n" + extra
	}
	for extra, want := range map[string]int64{"": 0, "max_cycle_ns = 5000\n": 5000} {
		s, err := Parse("t.toml", []byte(flap(extra)), testRegistry(), noFiles)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Assertions[0].Params.(swimcheck.NoFlapWhileProbesOK).MaxCycleNs; got != want {
			t.Errorf("%q: max_cycle_ns %d, want %d", extra, got, want)
		}
	}
	for extra, want := range map[string]string{
		"max_cycle_ns = 0\n":      "t.toml: assertions[f].max_cycle_ns: must be greater than 0, got 0",
		"max_cycle_ns = 20_000\n": "t.toml: assertions[f].max_cycle_ns: 20000 is longer than the run (duration_ns = 10000)",
	} {
		t.Run(extra, func(t *testing.T) { wantParseErrs(t, flap(extra), want) })
	}
}
