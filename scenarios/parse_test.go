package scenarios

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/network"
)

func mustParse(t *testing.T, src string) *Scenario {
	t.Helper()
	s, err := Parse("t.toml", []byte(src), testRegistry(), noFiles)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func edges(links []network.Link) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.From + ">" + l.To
	}
	return out
}

func TestParse_DefaultsApplied(t *testing.T) {
	s := mustParse(t, "# expect: fail-until-fix\n"+with(`id = "c"`+"\nkind = \"echo\"",
		`id = "c"`+"\nkind = \"echo\"\ninitial_state = \"down\"\ntick_period_ns_override = 70\nkind_config = { payload_bytes = 9 }"))
	want := &Scenario{
		Name: "t", Seed: 1, DurationNs: 10_000, TickPeriodNs: 100,
		DefaultLink: network.Policy{BandwidthBps: 1000, CacheInvalidateAfterIdleNs: DefaultIdleNs, SendBufferBytes: DefaultSendBufferBytes, MTUBytes: DefaultMTUBytes},
		Peers: []Peer{
			{ID: "a", Kind: "echo", InitialState: "up", TickPeriodNs: 100, KindConfig: map[string]any{}},
			{ID: "b", Kind: "echo", InitialState: "up", TickPeriodNs: 100, KindConfig: map[string]any{}},
			{ID: "c", Kind: "echo", InitialState: "down", TickPeriodNs: 70, KindConfig: map[string]any{"payload_bytes": int64(9)}},
		},
		FullMesh: true,
		Expect:   "fail-until-fix",
	}
	got := *s
	got.Links, got.Path, got.SourceSHA256, got.merged = nil, "", [32]byte{}, nil
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("got  %+v\nwant %+v", &got, want)
	}
	if s.Path != "t.toml" {
		t.Errorf("Path = %q", s.Path)
	}
}

func TestParse_SourceSHA256IsTheFileBytes(t *testing.T) {
	s := mustParse(t, valid)
	if s.SourceSHA256 != sha256.Sum256([]byte(valid)) {
		t.Errorf("SourceSHA256 is not the SHA-256 of the file")
	}
}

func TestParse_NoLinksIsFullMesh_5_1(t *testing.T) {
	s := mustParse(t, with(`bandwidth_bps = 1000`, "bandwidth_bps = 1000\nlatency_ns = 7"))
	want := []string{"a>b", "a>c", "b>a", "b>c", "c>a", "c>b"}
	if !s.FullMesh || s.Links != nil {
		t.Fatalf("FullMesh %v, Links %v: want true, nil", s.FullMesh, s.Links)
	}
	if got := edges(s.Edges()); !slices.Equal(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
	for _, l := range s.Edges() {
		if l.Policy != s.DefaultLink {
			t.Errorf("%v has policy %+v, want the default %+v", l.Edge, l.Policy, s.DefaultLink)
		}
	}
}

func TestParse_DeclaredLinksOnlyWithStarAndOverrides_5_1(t *testing.T) {
	s := mustParse(t, valid+`
[[links]]
from = "*"
to = "a"
latency_ns = 10
[[links]]
from = "c"
to = "*"
loss_prob_ppm = 5
[[links]]
from = "b"
to = "a"
jitter_stddev_ns = 3
[[links]]
from = "*"
to = "a"
latency_ns = 20
`)
	// a→a from the "*" expansion is skipped; a→b, a→c and b→c do not exist.
	want := []string{"b>a", "c>a", "c>b"}
	if got := edges(s.Links); !slices.Equal(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
	base := s.DefaultLink
	wantPolicy := map[string]network.Policy{
		"b>a": with3(base, 20, 3, 0),
		"c>a": with3(base, 20, 0, 5),
		"c>b": with3(base, 0, 0, 5),
	}
	for _, l := range s.Links {
		if w := wantPolicy[l.From+">"+l.To]; l.Policy != w {
			t.Errorf("%s>%s policy %+v, want %+v", l.From, l.To, l.Policy, w)
		}
	}
}

func with3(p network.Policy, latency, jitter, loss int64) network.Policy {
	p.LatencyNs, p.JitterStddevNs, p.LossProbPPM = latency, jitter, loss
	return p
}

func TestParse_MutationsInDeclaredOrder_5_5(t *testing.T) {
	s := mustParse(t, valid+`
[[mutations]]
at_ns = 9
kind = "PeerResurrect"
peer = "a"
preserve_state = true
[[mutations]]
at_ns = 1
kind = "Partition"
peers_a = ["a"]
peers_b = ["c", "b"]
[[mutations]]
at_ns = 2
kind = "Heal"
[[mutations]]
at_ns = 3
kind = "LatencySpike"
links = [{ from = "a", to = "b" }]
factor_x100 = 450
duration_ns = 100
[[mutations]]
at_ns = 4
kind = "LossBurst"
links = [{ from = "b", to = "a" }, { from = "c", to = "a" }]
prob_ppm = 1_000_000
duration_ns = 5
[[mutations]]
at_ns = 5
kind = "RelayBuffer"
links = [{ from = "a", to = "c" }]
floor_ns = 0
duration_ns = 6
[[mutations]]
at_ns = 6
kind = "PeerKill"
peer = "b"
[[mutations]]
at_ns = 10_000
kind = "PeerResurrect"
peer = "b"
[[mutations]]
at_ns = 7
kind = "PeerKill"
peer = "a"
`)
	ab, ba, ca, ac := network.Edge{From: "a", To: "b"}, network.Edge{From: "b", To: "a"}, network.Edge{From: "c", To: "a"}, network.Edge{From: "a", To: "c"}
	want := []network.Mutation{
		{Kind: network.PeerResurrect, At: 9, Peer: "a", PreserveState: true},
		{Kind: network.Partition, At: 1, PeersA: []string{"a"}, PeersB: []string{"c", "b"}},
		{Kind: network.Heal, At: 2},
		{Kind: network.LatencySpike, At: 3, Links: []network.Edge{ab}, FactorX100: 450, DurationNs: 100},
		{Kind: network.LossBurst, At: 4, Links: []network.Edge{ba, ca}, ProbPPM: 1_000_000, DurationNs: 5},
		{Kind: network.RelayBuffer, At: 5, Links: []network.Edge{ac}, FloorNs: 0, DurationNs: 6},
		{Kind: network.PeerKill, At: 6, Peer: "b"},
		{Kind: network.PeerResurrect, At: 10_000, Peer: "b"},
		{Kind: network.PeerKill, At: 7, Peer: "a"},
	}
	if !reflect.DeepEqual(s.Mutations, want) {
		t.Errorf("mutations\n%+v\nwant\n%+v", s.Mutations, want)
	}
}

func TestParse_SnapshotsAndAssertions_10_1(t *testing.T) {
	s := mustParse(t, valid+`
[[snapshots]]
at_ns = 10_000
[[snapshots]]
at_ns = 0
[[assertions]]
kind = "all_alive_throughout"
peers = ["b", "a"]
[[assertions]]
name = "conv"
kind = "convergence_after"
after_ns = 100
within_ns = 9_900
[[assertions]]
kind = "no_dead_when_probes_ok"
peer = "c"
window_start_ns = 10
[[assertions]]
kind = "message_size_bounded"
message_kind = "ping"
max_bytes = 1400
[[assertions]]
kind = "dead_peer_resurrects_within"
peer = "a"
after_ns = 0
within_ns = 0
[[assertions]]
kind = "event_rate"
event_type = "ping_sent"
window_ns = 10_000
max_per_window = 0
`)
	if !slices.Equal(s.Snapshots, []int64{10_000, 0}) {
		t.Errorf("snapshots %v", s.Snapshots)
	}
	all := []string{"a", "b", "c"}
	want := []Assertion{
		{Name: "all_alive_throughout#0", Kind: "all_alive_throughout", Params: swimcheck.AllAliveThroughout{Peers: []string{"b", "a"}, WindowStartNs: 0, WindowEndNs: 10_000}},
		{Name: "conv", Kind: "convergence_after", Params: swimcheck.ConvergenceAfter{AfterNs: 100, WithinNs: 9_900, Peers: all}},
		{Name: "no_dead_when_probes_ok#2", Kind: "no_dead_when_probes_ok", Params: swimcheck.NoDeadWhenProbesOK{Peer: "c", WindowStartNs: 10, WindowEndNs: 10_000}},
		{Name: "message_size_bounded#3", Kind: "message_size_bounded", Params: swimcheck.MessageSizeBounded{MessageKind: "ping", MaxBytes: 1400}},
		{Name: "dead_peer_resurrects_within#4", Kind: "dead_peer_resurrects_within", Params: swimcheck.DeadPeerResurrectsWithin{Peer: "a", AfterNs: 0, WithinNs: 0}},
		{Name: "event_rate#5", Kind: "event_rate", Params: EventRate{EventType: "ping_sent", WindowNs: 10_000, MaxPerWindow: 0}},
	}
	if !reflect.DeepEqual(s.Assertions, want) {
		t.Errorf("assertions\n%+v\nwant\n%+v", s.Assertions, want)
	}
	// The parameters verdicts.json records: every key, defaults filled in,
	// as the untyped map the loader used to keep.
	wantMaps := []map[string]any{
		{"peers": []string{"b", "a"}, "window_start_ns": int64(0), "window_end_ns": int64(10_000)},
		{"after_ns": int64(100), "within_ns": int64(9_900), "peers": all},
		{"peer": "c", "window_start_ns": int64(10), "window_end_ns": int64(10_000)},
		{"message_kind": "ping", "max_bytes": int64(1400)},
		{"peer": "a", "after_ns": int64(0), "within_ns": int64(0)},
		{"event_type": "ping_sent", "window_ns": int64(10_000), "max_per_window": int64(0)},
	}
	for i, a := range s.Assertions {
		if got := a.ParamMap(); !reflect.DeepEqual(got, wantMaps[i]) {
			t.Errorf("%s: ParamMap %v, want %v", a.Name, got, wantMaps[i])
		}
		if err := a.Check(); err != nil {
			t.Errorf("%s: Check: %v", a.Name, err)
		}
	}
}

func TestAssertionKinds_AreTheTenOf_10_1(t *testing.T) {
	var names []string
	for _, k := range AssertionKinds(libraryRegistry()) {
		names = append(names, k.Kind)
		for _, p := range k.Params {
			if p.Key == "kind" || p.Key == "name" {
				t.Errorf("%s has a parameter %q, which clashes with the table's own key", k.Kind, p.Key)
			}
		}
	}
	want := []string{"all_alive_at", "all_alive_throughout", "convergence_after", "no_flap_while_probes_ok",
		"no_dead_when_probes_ok", "self_incarnation_bounded", "message_size_bounded",
		"dead_peer_resurrects_within", "event_count", "event_rate",
		// The agent family's oracles: an amendment (docs/assertions.md).
		"effect_outcome_once", "cancel_settles_within", "no_torn_success", "no_lost_ack",
		"tool_result_matched", "output_bounded", "retry_budget", "response_bounded", "no_commit_after_settle", "turn_outcome_once",
		"tool_run_once", "tool_result_returned", "turn_not_repeated", "tool_deadline_kept", "no_work_after_cancel",
		// The raft kind's (kinds/raft/rafthost, docs/raft.md).
		"election_safety", "log_matching", "leader_completeness", "state_machine_safety",
		"proposal_commits_within", "no_leader_change", "no_raft_panic", "catches_up_after_heal", "linearizable"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("kinds %v, want %v", names, want)
	}
	if _, ok := LookupAssertionKind(libraryRegistry(), "event_count"); !ok {
		t.Errorf("LookupAssertionKind(event_count) not found")
	}
}

func TestErrors_PrintOnePerLineSorted_8_2(t *testing.T) {
	es := Errors{
		{File: "b.toml", Field: "x", Msg: "late file"},
		{File: "a.toml", Field: "peers[b].kind", Msg: "second"},
		{File: "a.toml", Msg: "line 1, column 2: whole file"},
		{File: "a.toml", Field: "peers[b].kind", Msg: "second"},
		{File: "a.toml", Field: "duration_ns", Msg: "first"},
	}
	want := "a.toml: line 1, column 2: whole file\n" +
		"a.toml: duration_ns: first\n" +
		"a.toml: peers[b].kind: second\n" +
		"b.toml: x: late file"
	if got := es.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var err error = es
	var back Errors
	if !errors.As(err, &back) || len(back) != 5 {
		t.Errorf("errors.As did not recover Errors")
	}
	if got := fmt.Sprint(Error{File: "f", Field: "k", Msg: "m"}); got != "f: k: m" {
		t.Errorf("Error prints %q", got)
	}
}

func TestParse_ExpectHeaderOnlyInFirstCommentBlock_8_3(t *testing.T) {
	tests := []struct{ src, want string }{
		{"\n\n# prose\n#   expect:  sensitivity-study \n# more\n" + valid, "sensitivity-study"},
		{valid, ""},
		{"# prose\n\n# expect: pass-now\n" + valid, ""},
		{valid + "# expect: pass-now\n", ""},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.src).Expect; got != tt.want {
			t.Errorf("Expect = %q, want %q for\n%s", got, tt.want, tt.src)
		}
	}
}
