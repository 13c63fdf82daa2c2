package bench

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/scenarios"
)

// swimSpec is one side-by-side set-up: n SWIM members with memberlist's
// LAN defaults on zero-latency links for durationNs of virtual time.
type swimSpec struct {
	name       string
	n          int
	durationNs int64
	// tickNs is the detsim tick period. SWIM starts a probe on the first
	// tick at or after its probe interval has elapsed, so a tick period
	// that divides the 1 s probe interval (200 ms here) keeps the probe
	// cadence exactly memberlist's (five ticks per probe).
	tickNs int64
}

const (
	second = int64(1_000_000_000)
	minute = 60 * second
)

var (
	spec3    = swimSpec{name: "swim3_7min", n: 3, durationNs: 7 * minute, tickNs: 200_000_000}
	spec1000 = swimSpec{name: "swim1000_60s", n: 1000, durationNs: 60 * second, tickNs: 200_000_000}
)

// peerID names peer i the way the memberlist side names its nodes.
func peerID(i int) string { return fmt.Sprintf("node%d", i) }

// pushPullOff is the kind_config line that turns off SWIM's periodic
// push/pull, as memberlist's side runs with PushPullInterval = 0; every
// other key keeps memberlist's LAN default.
const pushPullOff = "kind_config = { push_pull_interval_ns = 0 }\n"

// toml renders the scenario. Links: no [[links]] key, so a full mesh of
// [default_link] (n·(n−1) directed edges), each with zero latency, no
// jitter, loss or reorder, no dial penalty, and a bandwidth so high that
// serialising any datagram takes 0 ns: a message arrives at the instant
// it is sent, as on memberlist's in-memory transport. Every peer starts
// as a "member" that knows every other one alive. One snapshot at the end
// and one assertion (everyone alive from the end of the first tick period,
// by which every peer has started, to the end) make the bundle a full
// one: events.ndjson, snapshots and verdicts.
func (s swimSpec) toml(kindConfig string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name = %q\nseed = 1\nduration_ns = %d\n\n", s.name, s.durationNs)
	fmt.Fprintf(&b, "[default_tick]\nperiod_ns = %d\n\n", s.tickNs)
	b.WriteString("[default_link]\nlatency_ns = 0\njitter_stddev_ns = 0\nloss_prob_ppm = 0\nreorder_prob_ppm = 0\n")
	b.WriteString("bandwidth_bps = 9_223_372_036_854_775_807\ncold_dial_penalty_ns = 0\ncache_warm_after_ns = 0\n\n")
	ids := make([]string, s.n)
	for i := range s.n {
		ids[i] = fmt.Sprintf("%q", peerID(i))
		fmt.Fprintf(&b, "[[peers]]\nid = %s\nkind = \"swim\"\ninitial_state = \"member\"\n%s\n", ids[i], kindConfig)
	}
	fmt.Fprintf(&b, "[[snapshots]]\nat_ns = %d\n\n", s.durationNs)
	fmt.Fprintf(&b, "[[assertions]]\nname = \"all_alive\"\nkind = \"all_alive_throughout\"\nwindow_start_ns = %d\nwindow_end_ns = %d\npeers = [%s]\n",
		s.tickNs, s.durationNs, strings.Join(ids, ", "))
	return []byte(b.String())
}

// load parses the generated scenario with detsim's own loader. A SWIM
// without the push_pull_interval_ns key has no periodic push/pull to turn
// off, so if the kind rejects that key the scenario is loaded without it.
func (s swimSpec) load(tb testing.TB) *scenarios.Scenario {
	tb.Helper()
	noExtends := func(string) ([]byte, error) { return nil, fmt.Errorf("the bench scenarios extend nothing") }
	sc, err := scenarios.Parse(s.name+".toml", s.toml(pushPullOff), builtin.Registry(), noExtends)
	if err != nil && strings.Contains(err.Error(), "push_pull_interval_ns") {
		sc, err = scenarios.Parse(s.name+".toml", s.toml(""), builtin.Registry(), noExtends)
	}
	if err != nil {
		tb.Fatalf("loading %s: %v", s.name, err)
	}
	return sc
}

// TestScenarioFiles_MatchTheSpecs: testdata/swim1000_60s.toml is the
// 1000-node benchmark's scenario as a file, so a fresh `detsim --batch`
// of it can be timed (docs/BENCHMARKS.md); it must stay what
// BenchmarkDetsim_1000Nodes60s runs. Regenerate with -update.
func TestScenarioFiles_MatchTheSpecs(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", spec1000.name+".toml"), spec1000.toml(pushPullOff))
	spec1000.load(t) // and it loads
}
