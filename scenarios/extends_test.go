package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/network"
)

var parentSrc = `# expect: pass-now
name = "parent"
seed = 3
duration_ns = 1_000
[default_tick]
period_ns = 10
[default_link]
latency_ns = 10
bandwidth_bps = 1000
` + echoPeers("a", "b") + `kind_config = { payload_bytes = 10 }
[[links]]
from = "*"
to = "*"
latency_ns = 10
[[links]]
from = "a"
to = "b"
latency_ns = 20
[[mutations]]
at_ns = 1
kind = "Heal"
[[mutations]]
at_ns = 2
kind = "PeerKill"
peer = "a"
[[snapshots]]
at_ns = 5
[[assertions]]
kind = "event_count"
event_type = "ping_sent"
max = 5
[[assertions]]
name = "x"
kind = "event_count"
event_type = "pong_sent"
max = 6
`

const childSrc = `# expect: fail-until-fix
name = "child"
[base]
extends = "../parent.toml"
[default_link]
latency_ns = 30
[[peers]]
id = "b"
initial_state = "down"
kind_config = { payload_bytes = 20 }
[[peers]]
id = "c"
kind = "echo"
[[links]]
from = "*"
to = "*"
latency_ns = 5
[[links]]
from = "b"
to = "a"
jitter_stddev_ns = 3
[[mutations]]
at_ns = 7
kind = "Heal"
[[assertions]]
kind = "event_count"
event_type = "ping_sent"
max = 7
[[assertions]]
name = "y"
kind = "event_rate"
event_type = "ping_sent"
window_ns = 100
max_per_window = 3
`

func TestParse_ExtendsMergesDeeplyAndByKey_8_1(t *testing.T) {
	read := files(map[string]string{"dir/parent.toml": parentSrc})
	s, err := Parse("dir/sub/child.toml", []byte(childSrc), testRegistry(), read)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "child" || s.Seed != 3 || s.DurationNs != 1_000 || s.TickPeriodNs != 10 {
		t.Errorf("top level not merged: %q seed %d duration %d tick %d", s.Name, s.Seed, s.DurationNs, s.TickPeriodNs)
	}
	if s.DefaultLink.LatencyNs != 30 || s.DefaultLink.BandwidthBps != 1000 {
		t.Errorf("default_link not deep-merged: %+v", s.DefaultLink)
	}
	if s.Expect != "fail-until-fix" {
		t.Errorf("Expect = %q: the header is the child's own", s.Expect)
	}

	var peers []string
	for _, p := range s.Peers {
		peers = append(peers, fmt.Sprintf("%s:%s:%s:%v", p.ID, p.Kind, p.InitialState, p.KindConfig["payload_bytes"]))
	}
	wantPeers := []string{"a:echo:up:<nil>", "b:echo:down:20", "c:echo:up:<nil>"}
	if !slices.Equal(peers, wantPeers) {
		t.Errorf("peers %v, want %v (merged by id)", peers, wantPeers)
	}

	// The child's "*"→"*" merges into the parent's, before the parent's
	// a→b override, which therefore still wins on a→b.
	latency := map[string]int64{}
	for _, l := range s.Links {
		latency[l.From+">"+l.To] = l.Policy.LatencyNs
	}
	wantLatency := map[string]int64{"a>b": 20, "a>c": 5, "b>a": 5, "b>c": 5, "c>a": 5, "c>b": 5}
	if fmt.Sprint(latency) != fmt.Sprint(wantLatency) {
		t.Errorf("link latencies %v, want %v", latency, wantLatency)
	}
	for _, l := range s.Links {
		if want := int64(0); l.From == "b" && l.To == "a" {
			want = 3
			if l.Policy.JitterStddevNs != want {
				t.Errorf("b>a jitter %d, want %d", l.Policy.JitterStddevNs, want)
			}
		}
	}

	if want := []network.Mutation{{Kind: network.Heal, At: 7}}; fmt.Sprint(s.Mutations) != fmt.Sprint(want) {
		t.Errorf("mutations %+v, want the child's list only %+v", s.Mutations, want)
	}
	if !slices.Equal(s.Snapshots, []int64{5}) {
		t.Errorf("snapshots %v, want the parent's (the child has none)", s.Snapshots)
	}

	var asserts []string
	for _, a := range s.Assertions {
		asserts = append(asserts, fmt.Sprintf("%s:%v", a.Name, a.ParamMap()["max"]))
	}
	wantAsserts := []string{"event_count#0:7", "x:6", "y:<nil>"}
	if !slices.Equal(asserts, wantAsserts) {
		t.Errorf("assertions %v, want %v (merged by name)", asserts, wantAsserts)
	}
}

func TestParse_ExtendsChildEmptyListClearsParent(t *testing.T) {
	child := "name = \"c\"\nmutations = []\nsnapshots = []\n[base]\nextends = \"p.toml\"\n"
	s, err := Parse("c.toml", []byte(child), testRegistry(), files(map[string]string{"p.toml": parentSrc}))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Mutations) != 0 || len(s.Snapshots) != 0 {
		t.Errorf("mutations %v snapshots %v, want both cleared", s.Mutations, s.Snapshots)
	}
}

func TestParse_ExtendsChainResolvesRelativeToEachFile(t *testing.T) {
	fs := files(map[string]string{
		"lib/mid/mid.toml":     "name = \"mid\"\n[base]\nextends = \"../root/root.toml\"\n",
		"lib/root/root.toml":   parentSrc,
		"lib/leaf/unused.toml": "",
	})
	s, err := Parse("lib/leaf/leaf.toml", []byte("[base]\nextends = \"../mid/mid.toml\"\n"), testRegistry(), fs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mid" || len(s.Peers) != 2 {
		t.Errorf("chain not merged: name %q, %d peers", s.Name, len(s.Peers))
	}
}

func TestParse_ExtendsErrors(t *testing.T) {
	deep := map[string]string{}
	for i := range MaxExtendsDepth + 1 {
		deep[fmt.Sprintf("d%d.toml", i)] = fmt.Sprintf("[base]\nextends = \"d%d.toml\"\n", i+1)
	}
	deep[fmt.Sprintf("d%d.toml", MaxExtendsDepth+1)] = parentSrc
	tests := []struct {
		name  string
		file  string
		src   string
		files map[string]string
		want  string
	}{
		{"cycle", "a.toml", "[base]\nextends = \"b.toml\"\n",
			map[string]string{"b.toml": "[base]\nextends = \"./a.toml\"\n"},
			"b.toml: base.extends: extends cycle: a.toml -> b.toml -> a.toml"},
		{"extends itself", "x/a.toml", "[base]\nextends = \"a.toml\"\n", nil,
			"x/a.toml: base.extends: extends cycle: x/a.toml -> x/a.toml"},
		{"too deep", "d0.toml", deep["d0.toml"], deep,
			"d15.toml: base.extends: extends chain is longer than 16 files"},
		{"missing parent", "a.toml", "[base]\nextends = \"nope.toml\"\n", nil,
			`a.toml: base.extends: cannot read "nope.toml": no file nope.toml`},
		{"syntax error in parent names the parent", "a.toml", "[base]\nextends = \"p.toml\"\n",
			map[string]string{"p.toml": "name = \n"},
			"p.toml: line 1, column 8: TOML syntax error: expected value but found '\\n' instead"},
		{"extends not a string", "a.toml", "[base]\nextends = 3\n", nil,
			"a.toml: base.extends: must be a string, got integer 3"},
		{"base not a table", "a.toml", "base = \"p.toml\"\n", nil,
			`a.toml: base: must be a table, got string "p.toml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file, []byte(tt.src), testRegistry(), files(tt.files))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestParse_SemanticErrorsAfterExtendsNameTheFileRun(t *testing.T) {
	child := "[base]\nextends = \"p.toml\"\n[default_link]\nbandwidth_bps = 0\n"
	_, err := Parse("c.toml", []byte(child), testRegistry(), files(map[string]string{"p.toml": parentSrc}))
	if err == nil || !strings.Contains(err.Error(), "c.toml: default_link.bandwidth_bps: must be greater than 0, got 0") {
		t.Errorf("err = %v", err)
	}
}

// TestParse_ExtendsDepthLimitIsTheDocumentedOne_Issue9: "at most 16 files
// deep" counts every file of the chain, the one run included: a chain of
// MaxExtendsDepth files loads, one more is refused.
func TestParse_ExtendsDepthLimitIsTheDocumentedOne_Issue9(t *testing.T) {
	chain := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n - 1 {
			m[fmt.Sprintf("d%d.toml", i)] = fmt.Sprintf("[base]\nextends = \"d%d.toml\"\n", i+1)
		}
		m[fmt.Sprintf("d%d.toml", n-1)] = parentSrc
		return m
	}
	at := chain(MaxExtendsDepth)
	if _, err := Parse("d0.toml", []byte(at["d0.toml"]), testRegistry(), files(at)); err != nil {
		t.Errorf("a chain of %d files: %v", MaxExtendsDepth, err)
	}
	over := chain(MaxExtendsDepth + 1)
	_, err := Parse("d0.toml", []byte(over["d0.toml"]), testRegistry(), files(over))
	want := fmt.Sprintf("d%d.toml: base.extends: extends chain is longer than %d files", MaxExtendsDepth-1, MaxExtendsDepth)
	if err == nil || err.Error() != want {
		t.Errorf("a chain of %d files: err = %v\nwant %s", MaxExtendsDepth+1, err, want)
	}
}
