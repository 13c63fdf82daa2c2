package edge

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// plantedAgents: each bug of testdata/agents/agent.py, the oracle that
// must catch it from what the edge saw, and the library scenarios where
// its fault fires (docs/assertions.md, "What the edge saw", has the table
// with the seeds of agent_faults each is caught on).
var plantedAgents = []struct {
	bug, oracle string
	scenarios   []string
}{
	{"ignore_retry_after", "retry_budget", []string{"agent/rate_limit"}},
	{"unbounded_retries", "retry_budget", []string{"agent/retries_exhausted"}},
	{"rerun_tool", "tool_run_once", []string{"agent/tool_hang", "agent/tool_exit_nonzero", "agent/tool_partial_then_fail", "agent/tool_cancelled"}},
	{"drop_result", "tool_result_returned", []string{"agent/faults_base", "agent/tool_huge_output"}},
	// agent/store_fault_restart kills the agent during turn 1's call,
	// before anything is committed: asking turn 1 again is right there.
	// agent/restart_after_turn kills it during turn 2's.
	{"restart_from_scratch", "turn_not_repeated", []string{"agent/restart_after_turn"}},
	{"leak_hung_tool", "tool_deadline_kept", []string{"agent/tool_hang"}},
	{"ignore_cancel", "no_work_after_cancel", []string{"agent/cancel_mid_stream", "agent/cancel_mid_tool"}},
}

// correctAlso are library scenarios the correct agent must keep every
// oracle on though no planted bug shows there.
var correctAlso = []string{"agent/store_fault_restart", "agent/auth_expired", "agent/oversized", "agent/truncated"}

// plantedSeeds are the seeds of agent_faults CI runs the planted agents
// on (each a real episode), with the bugs each is caught on there: seed
// 16 hangs a tool (no Cancel cuts it short), 9 fails every attempt of one step (one a 429) and
// more, 10 answers 429 and cancels the agent at 7.5 s, 38 kills it at
// 4.2 s, after its first turn, and restarts it; 22 kills it at 28.7 s,
// long after the built-in agent's 4 s episode, which the edge places at
// the agent's 4th step of 5 (where it falls in the draw's 0.1–40 s: at
// its fraction of the 300 s duration it was the first, before turn 1
// committed). DETSIM_AGENT_SEEDS=1-20,38 runs those seeds instead and
// logs which each bug was caught on (the table in docs/assertions.md).
var plantedSeeds = map[uint64][]string{
	16: {"leak_hung_tool", "rerun_tool"},
	9:  {"ignore_retry_after", "unbounded_retries", "drop_result"},
	10: {"ignore_retry_after", "ignore_cancel"},
	22: {"restart_from_scratch"},
	38: {"rerun_tool", "restart_from_scratch"},
}

// agentRun serves sc, runs testdata/agents/agent.py with bug ("" the
// correct agent) as one session, and returns the episode.
//
// The outside agents' episodes run in parallel (t.Parallel), as many at
// once as go test's -parallel, the machine's CPUs by default: each edge
// listens on its own loopback port and writes under its own temporary
// directory, and an episode spends most of its time waiting for its
// schedule's instants, so one after another they took minutes
// (docs/BENCHMARKS.md, "The edge's tests").
func agentRun(t *testing.T, py string, sc *scenarios.Scenario, in Span, bug string) Episode {
	t.Helper()
	// 0.02 on an idle machine: an agent's Python takes a millisecond or
	// so per request, and a Cancel must settle within 2 s of schedule
	// time (40 ms); slower in proportion on a loaded one — the load now,
	// with the episodes running beside this one, not the load when the
	// test binary began (realtime.ScaleParallel: the 2 s bound missed at
	// load 12.5 with the scale taken once, minutes before).
	k := realtime.ScaleParallel()
	scale := 0.02 * float64(k)
	// DETSIM_EDGE_SCHEDULE=time compares the control events at their
	// instants (TestFaultsFired's table has both).
	r := start(t, sc, Options{TimeScale: scale, Allow: []string{"echo"}, Schedule: os.Getenv("DETSIM_EDGE_SCHEDULE"), DrawnIn: in})
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(k)*60*time.Second)
	defer cancel()
	args := []string{filepath.Join("..", "..", "..", "testdata", "agents", "agent.py"), r.url, "a1", "--time-scale", fmt.Sprint(scale)}
	if bug != "" {
		args = append(args, "--bug", bug)
	}
	c := exec.CommandContext(ctx, py, args...)
	c.Env = append(os.Environ(), "DETSIM_EDGE_KEY="+keyOf(r.url))
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("agent %q: %v\n%s", bug, err, out)
	}
	eps := r.stop()
	if len(eps) != 1 || eps[0].Err != nil {
		t.Fatalf("episodes %+v, want the agent's one", eps)
	}
	verifies(t, eps[0])
	return eps[0]
}

func failedOracles(ep Episode) []string {
	var out []string
	for _, f := range failing(ep) {
		name, _, _ := strings.Cut(f, ":")
		out = append(out, name)
	}
	return out
}

// TestPlantedAgents runs the agents of testdata/agents/ — written
// outside the Go code, as an outside agent's author would — against the
// edge: on every library scenario where its fault fires, each planted
// bug is caught by its oracle from what the edge saw, and the correct
// agent keeps every oracle there.
func TestPlantedAgents(t *testing.T) {
	py := python3(t)
	if testing.Short() {
		t.Skip("runs real agents for a few seconds")
	}
	t.Parallel() // as each episode: see agentRun
	lib := slices.Clone(correctAlso)
	for _, c := range plantedAgents {
		for _, s := range c.scenarios {
			if !slices.Contains(lib, s) {
				lib = append(lib, s)
			}
		}
	}
	slices.Sort(lib)
	for _, name := range lib {
		sc, err := scenarios.LoadLibrary(name, builtin.Registry())
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name+"/correct", func(t *testing.T) {
			t.Parallel()
			if f := failing(agentRun(t, py, sc, Span{}, "")); len(f) > 0 {
				t.Errorf("the correct agent failed: %v", f)
			}
		})
		for _, c := range plantedAgents {
			if !slices.Contains(c.scenarios, name) {
				continue
			}
			t.Run(name+"/"+c.bug, func(t *testing.T) {
				t.Parallel()
				ep := agentRun(t, py, sc, Span{}, c.bug)
				if f := failedOracles(ep); !slices.Contains(f, c.oracle) {
					t.Errorf("bug %s not caught by %s: failed %v", c.bug, c.oracle, failing(ep))
				}
			})
		}
	}
}

// TestPlantedAgents_Seeds runs the correct agent and each planted one
// on seeds of agent_faults: the correct agent keeps every oracle on
// every seed, and each bug is caught by its oracle where plantedSeeds
// says its fault fires. With DETSIM_AGENT_SEEDS, DETSIM_AGENT_BUGS
// (restart_from_scratch,ignore_cancel) runs only those bugs there.
func TestPlantedAgents_Seeds(t *testing.T) {
	py := python3(t)
	if testing.Short() {
		t.Skip("runs real agents for a few seconds")
	}
	t.Parallel()
	p, err := property.LoadLibrary("agent_faults", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	seeds := slices.Sorted(maps.Keys(plantedSeeds))
	want := plantedSeeds
	if r := os.Getenv("DETSIM_AGENT_SEEDS"); r != "" {
		seeds, want = seedList(t, "DETSIM_AGENT_SEEDS", r), nil
	}
	var only []string
	if want == nil && os.Getenv("DETSIM_AGENT_BUGS") != "" {
		only = strings.Split(os.Getenv("DETSIM_AGENT_BUGS"), ",")
	}
	var mu sync.Mutex
	caught := map[string][]uint64{}
	// After every episode: a parallel subtest runs once this function
	// has returned.
	t.Cleanup(func() {
		for _, c := range plantedAgents {
			if only == nil || slices.Contains(only, c.bug) {
				slices.Sort(caught[c.bug])
				t.Logf("%s (%s): caught on %d of %d seeds: %v", c.bug, c.oracle, len(caught[c.bug]), len(seeds), caught[c.bug])
			}
		}
	})
	for _, seed := range seeds {
		sc, err := p.Scenario(seed, builtin.Registry())
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("seed%d/correct", seed), func(t *testing.T) {
			t.Parallel()
			if f := failing(agentRun(t, py, sc, DrawSpan(p), "")); len(f) > 0 {
				t.Errorf("the correct agent failed: %v", f)
			}
		})
		for _, c := range plantedAgents {
			if want != nil && !slices.Contains(want[seed], c.bug) || only != nil && !slices.Contains(only, c.bug) {
				continue
			}
			t.Run(fmt.Sprintf("seed%d/%s", seed, c.bug), func(t *testing.T) {
				t.Parallel()
				f := failedOracles(agentRun(t, py, sc, DrawSpan(p), c.bug))
				switch {
				case slices.Contains(f, c.oracle):
					mu.Lock()
					caught[c.bug] = append(caught[c.bug], seed)
					mu.Unlock()
				case want != nil:
					t.Errorf("bug %s not caught by %s: failed %v", c.bug, c.oracle, f)
				}
			})
		}
	}
}

// seedList reads seeds and ranges, 1-12,38, from environment variable
// name's value r.
func seedList(t *testing.T, name, r string) []uint64 {
	t.Helper()
	var seeds []uint64
	for _, part := range strings.Split(r, ",") {
		var first, last uint64
		if _, err := fmt.Sscanf(part, "%d-%d", &first, &last); err != nil {
			if _, err := fmt.Sscanf(part, "%d", &first); err != nil {
				t.Fatalf("%s=%q: want seeds and ranges, 1-12,38", name, r)
			}
			last = first
		}
		for s := first; s <= last; s++ {
			seeds = append(seeds, s)
		}
	}
	return seeds
}

// tsPlantedAgents: each bug of testdata/agents/agent.mts — one that
// lives in how an agent uses the official TypeScript SDKs —, the oracle
// that must catch it from what the edge saw, the library scenarios where
// its fault fires and the seeds of agent_faults it is caught on with
// both SDKs (docs/assertions.md, "What the edge saw", has the table).
var tsPlantedAgents = []struct {
	bug, oracle string
	scenarios   []string
	seeds       []uint64
}{
	{"ignore_retry_after", "retry_budget", []string{"agent/rate_limit"}, []uint64{9, 10}},
	{"sdk_retries", "retry_budget", []string{"agent/retries_exhausted"}, []uint64{9}},
}

// TestPlantedAgents_TypeScript runs testdata/agents/agent.mts on the
// official SDKs against the edge, with each SDK: on the library
// scenarios and seeds of agent_faults where its fault fires, each
// planted bug is caught by its oracle, and the correct agent keeps every
// oracle there. DETSIM_TS_AGENT_SEEDS=1-30 runs every bug on those seeds
// instead and logs which each was caught on.
func TestPlantedAgents_TypeScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real agents for a few seconds")
	}
	node, dir := nodeSDKs(t)
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "agents", "agent.mts"))
	if err != nil {
		t.Fatal(err)
	}
	file := transpiled(t, dir, "detsim-edge-agent", src)
	p, err := property.LoadLibrary("agent_faults", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		name string
		sc   *scenarios.Scenario
		in   Span     // a seed's draw span
		bugs []string // caught there
	}
	var targets []target
	add := func(name string, sc *scenarios.Scenario, in Span, bug string) {
		for i := range targets {
			if targets[i].name == name {
				targets[i].bugs = append(targets[i].bugs, bug)
				return
			}
		}
		targets = append(targets, target{name, sc, in, []string{bug}})
	}
	sweep := os.Getenv("DETSIM_TS_AGENT_SEEDS")
	for _, c := range tsPlantedAgents {
		for _, name := range c.scenarios {
			sc, err := scenarios.LoadLibrary(name, builtin.Registry())
			if err != nil {
				t.Fatal(err)
			}
			add(name, sc, Span{}, c.bug)
		}
		seeds := c.seeds
		if sweep != "" {
			seeds = seedList(t, "DETSIM_TS_AGENT_SEEDS", sweep)
		}
		for _, seed := range seeds {
			sc, err := p.Scenario(seed, builtin.Registry())
			if err != nil {
				t.Fatal(err)
			}
			add(fmt.Sprintf("seed%02d", seed), sc, DrawSpan(p), c.bug)
		}
	}
	var mu sync.Mutex
	caught := map[string][]string{}
	t.Cleanup(func() { // after every episode
		for _, k := range slices.Sorted(maps.Keys(caught)) {
			slices.Sort(caught[k])
			t.Logf("%s caught on %v", k, caught[k])
		}
	})
	for _, tg := range targets {
		for _, api := range []string{"anthropic", "openai"} {
			runs := append([]string{""}, tg.bugs...)
			if sweep != "" {
				runs = tg.bugs // the correct client's seeds are TestClients_TypeScript's
			}
			for _, bug := range runs {
				t.Run(tg.name+"/"+api+"/"+cmp.Or(bug, "correct"), func(t *testing.T) {
					t.Parallel()
					// 0.1, not the clients' 0.02: node's path from a 429
					// to its next request takes tens of ms of CPU (the
					// SDK's error, cold code), and a retry at once must
					// come well inside the scaled retry-after to be seen.
					ep := clientRun(t, tg.sc, tg.in, 0.1, func(ctx context.Context, url, scale string) *exec.Cmd {
						args := []string{file, url, "t1", api, scale}
						if bug != "" {
							args = append(args, bug)
						}
						cmd := exec.CommandContext(ctx, node, args...)
						cmd.Dir = dir
						return cmd
					})
					f := failedOracles(ep)
					switch oracle := tsOracle(bug); {
					case bug == "" && len(f) > 0:
						t.Errorf("the correct agent failed: %v", failing(ep))
					case bug != "" && slices.Contains(f, oracle):
						mu.Lock()
						caught[bug+"/"+api] = append(caught[bug+"/"+api], tg.name)
						mu.Unlock()
					case bug != "" && sweep == "":
						t.Errorf("bug %s not caught by %s: failed %v", bug, oracle, failing(ep))
					}
				})
			}
		}
	}
}

// tsOracle is the oracle that catches bug of agent.mts.
func tsOracle(bug string) string {
	for _, c := range tsPlantedAgents {
		if c.bug == bug {
			return c.oracle
		}
	}
	return ""
}
