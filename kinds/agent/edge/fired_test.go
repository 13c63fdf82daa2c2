package edge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/property"
)

// TestFaultsFired measures how often each fault of agent_faults meets
// the correct outside agent (testdata/agents/agent.py): over the seeds
// of DETSIM_AGENT_FIRED (1-100 for the table in docs/agents.md, "Faults
// that meet the agent"), the seeds that schedule each fault and the
// seeds where it fired in the agent's episode — a provider fault's
// entry served, a tool effect's run started, a Cancel, kill or restart
// recorded. The correct agent must keep every oracle on each. Without
// the variable it is skipped: it runs a real agent per seed.
func TestFaultsFired(t *testing.T) {
	r := os.Getenv("DETSIM_AGENT_FIRED")
	if r == "" {
		t.Skip("DETSIM_AGENT_FIRED is not set (seeds of agent_faults, 1-100)")
	}
	py := python3(t)
	t.Parallel()
	reg := builtin.Registry()
	p, err := property.LoadLibrary("agent_faults", reg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sched, fired := map[string]int{}, map[string]int{}
	// After every episode: a parallel subtest runs once this function
	// has returned.
	t.Cleanup(func() {
		var names []string
		for k := range sched {
			names = append(names, k)
		}
		slices.Sort(names)
		var b strings.Builder
		b.WriteString("| fault | seeds scheduling it | seeds where it fired |\n|---|---|---|\n")
		for _, k := range names {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", k, sched[k], fired[k])
		}
		t.Logf("faults of agent_faults seeds %s met by the correct agent (schedule %q):\n%s", r, os.Getenv("DETSIM_EDGE_SCHEDULE"), b.String())
	})
	for _, seed := range seedList(t, "DETSIM_AGENT_FIRED", r) {
		sc, err := p.Scenario(seed, reg)
		if err != nil {
			t.Fatal(err)
		}
		on := map[string]bool{}
		entries := map[int64]string{} // script entry → its fault
		effects := map[string]bool{}  // tool effects placed
		for _, pe := range sc.Peers {
			switch pe.Kind {
			case provider.Tag:
				s, _ := provider.ParseScript(pe.KindConfig)
				for i, en := range s.Entries {
					if en.Fault.Kind != "" {
						entries[int64(i)] = en.Fault.Kind
						on["provider "+en.Fault.Kind] = true
					}
				}
			case tool.Tag:
				effs, _ := tool.ParseEffects(pe.KindConfig)
				for _, ef := range effs {
					if ef.Effect != tool.Success {
						effects[ef.Effect] = true
						on["tool "+ef.Effect] = true
					}
				}
			}
		}
		for _, m := range sc.Mutations {
			if m.Kind == network.Cancel || m.Kind == network.PeerKill || m.Kind == network.PeerResurrect {
				on["control "+m.Kind.String()] = true
			}
		}
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel() // as every outside agent's episode (agentRun)
			hit := map[string]bool{}
			// Counted however the episode ends, as the seed counts.
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for k := range on {
					sched[k]++
					if hit[k] {
						fired[k]++
					}
				}
			}()
			ep := agentRun(t, py, sc, DrawSpan(p), "")
			if f := failing(ep); len(f) > 0 {
				t.Errorf("the correct agent failed: %v", f)
			}
			firedIn(t, ep.Bundle, entries, effects, hit)
		})
	}
}

// firedIn marks in hit each fault the bundle's records show firing.
func firedIn(t *testing.T, dir string, entries map[int64]string, effects map[string]bool, hit map[string]bool) {
	f, err := os.Open(filepath.Join(dir, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc2 := bufio.NewScanner(f)
	sc2.Buffer(nil, 16<<20)
	for sc2.Scan() {
		var line struct {
			Event struct {
				Type   string `json:"type"`
				Entry  int64  `json:"entry"`
				State  string `json:"state"`
				Effect string `json:"effect"`
				Kind   string `json:"kind"`
			} `json:"event"`
		}
		if json.Unmarshal(sc2.Bytes(), &line) != nil {
			continue
		}
		switch ev := line.Event; ev.Type {
		case "request_received":
			if k, ok := entries[ev.Entry]; ok {
				hit["provider "+k] = true
			}
		case "tool_state":
			if ev.State == "started" && effects[ev.Effect] {
				hit["tool "+ev.Effect] = true
			}
		case "mutation":
			hit["control "+ev.Kind] = true
		}
	}
}
