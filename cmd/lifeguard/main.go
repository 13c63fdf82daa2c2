// Command lifeguard regenerates the table of docs/lifeguard.md: the
// library scenario lifeguard/slow_members (a 100-member cluster with four
// slow members and one real crash) run as plain SWIM, as Lifeguard, and
// as Lifeguard with each of its components off, at three message
// processing delays and over several seeds, counting false positives
// (healthy members marked suspect or dead by others) and the detection
// latency of the crash.
//
//	go run ./cmd/lifeguard            # the table in docs/lifeguard.md
//	go run ./cmd/lifeguard -seeds 1   # quicker, noisier
//
// Every run is an ordinary deterministic detsim run: a row's numbers are
// the same on every machine.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/hosts/swim"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// Base is the library scenario every run starts from.
const Base = "lifeguard/slow_members"

// Variant is one protocol configuration: the kind_config keys it sets on
// every member.
type Variant struct {
	Name   string
	Config map[string]any
}

// Variants are the rows of the table, plain SWIM first.
var Variants = []Variant{
	{"SWIM (`lifeguard = false`)", map[string]any{"lifeguard": false}},
	{"Lifeguard (default)", nil},
	{"Lifeguard, `lifeguard_awareness = false`", map[string]any{"lifeguard_awareness": false}},
	{"Lifeguard, `lifeguard_suspicion = false`", map[string]any{"lifeguard_suspicion": false}},
	{"Lifeguard, `lifeguard_nack = false`", map[string]any{"lifeguard_nack": false}},
	{"Lifeguard, `lifeguard_buddy = false`", map[string]any{"lifeguard_buddy": false}},
}

// Result is what one run measured.
type Result struct {
	// HealthyAccused counts a member's own accusations of a healthy
	// member: suspect transitions with reason probe_failed, each the start
	// of a false positive that gossip then spreads to every view.
	HealthyAccused int
	// HealthySuspect and HealthyDead count every transition of another
	// member's view of a healthy member into suspect / dead, whatever the
	// reason (gossip included): how far the false positives reached.
	HealthySuspect, HealthyDead int
	SlowSuspect, SlowDead       int   // the same about the slow members
	FirstNs                     int64 // from the kill to the first dead view of the crashed member; -1 if none
	// FullNs is from the kill to the moment every healthy live member
	// held the crashed one dead; -1 if not within the run. (Slow members
	// learn it when they get through their backlog: not a property of the
	// detector.)
	FullNs int64
}

// Run runs base with variant v, the slow members' recv_cost_ns set to
// costNs, under seed.
func Run(base *scenarios.Scenario, v Variant, costNs int64, seed uint64) (Result, error) {
	sc := *base
	sc.Seed = seed
	sc.Peers = slices.Clone(base.Peers)
	slow := map[string]bool{}
	for i := range sc.Peers {
		p := &sc.Peers[i]
		cfg := make(map[string]any, len(p.KindConfig)+len(v.Config))
		for k, x := range p.KindConfig {
			cfg[k] = x
		}
		for k, x := range v.Config {
			cfg[k] = x
		}
		p.KindConfig = cfg
		if p.RecvCostNs > 0 {
			slow[p.ID] = true
			p.RecvCostNs = costNs
		}
	}
	var killed string
	var killAt int64
	for _, m := range sc.Mutations {
		if m.Kind == network.PeerKill {
			killed, killAt = m.Peer, m.At
		}
	}
	k := &counter{slow: slow, killed: killed, killAt: killAt, dead: map[string]bool{}, res: Result{FirstNs: -1, FullNs: -1}}
	e, err := engine.New(&sc, builtin.Registry(), engine.Options{Sink: k})
	if err != nil {
		return Result{}, err
	}
	k.live = len(sc.Peers) - len(slow) - 1
	if err := e.Run(); err != nil {
		return Result{}, err
	}
	return k.res, nil
}

// counter is the engine Sink that counts the table's facts.
type counter struct {
	slow   map[string]bool
	killed string
	killAt int64
	live   int             // healthy members other than the crashed one
	dead   map[string]bool // healthy observers that have held the crashed member dead
	res    Result
}

func (c *counter) Snapshot(int64, string, int, []byte) {}

func (c *counter) Event(at int64, _ string, _ string, ev hosts.Event) {
	st, ok := ev.(*swim.StateTransition)
	if !ok || st.Observer == st.Subject || (st.To != swim.Suspect && st.To != swim.Dead) {
		return
	}
	switch {
	case st.Subject == c.killed && at >= c.killAt:
		if st.To != swim.Dead || c.slow[st.Observer] || c.dead[st.Observer] {
			return
		}
		c.dead[st.Observer] = true
		if c.res.FirstNs < 0 {
			c.res.FirstNs = at - c.killAt
		}
		if len(c.dead) == c.live {
			c.res.FullNs = at - c.killAt
		}
	case c.slow[st.Subject]:
		if st.To == swim.Suspect {
			c.res.SlowSuspect++
		} else {
			c.res.SlowDead++
		}
	default:
		if st.Reason == swim.ReasonProbeFailed {
			c.res.HealthyAccused++
		}
		if st.To == swim.Suspect {
			c.res.HealthySuspect++
		} else {
			c.res.HealthyDead++
		}
	}
}

// Cell is one (variant, delay) of the table, over every seed.
type Cell struct {
	Runs                        int
	HealthyAccused              int
	HealthySuspect, HealthyDead int
	SlowSuspect, SlowDead       int
	First, Full                 []int64 // per seed; -1 = not detected / not fully disseminated
}

// Table runs every variant at every delay over seeds 1..seeds, on up to
// parallel goroutines.
func Table(base *scenarios.Scenario, costs []int64, seeds, parallel int) ([][]Cell, error) {
	type job struct{ v, c, seed int }
	cells := make([][]Cell, len(Variants))
	for i := range cells {
		cells[i] = make([]Cell, len(costs))
	}
	results := make(map[job]Result)
	var mu sync.Mutex
	var firstErr error
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r, err := Run(base, Variants[j.v], costs[j.c], uint64(j.seed))
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				results[j] = r
				mu.Unlock()
			}
		}()
	}
	for v := range Variants {
		for c := range costs {
			for s := 1; s <= seeds; s++ {
				jobs <- job{v, c, s}
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	// Aggregate in a fixed order, so the table never depends on which
	// goroutine finished first.
	for v := range Variants {
		for c := range costs {
			cell := &cells[v][c]
			for s := 1; s <= seeds; s++ {
				r := results[job{v, c, s}]
				cell.Runs++
				cell.HealthyAccused += r.HealthyAccused
				cell.HealthySuspect += r.HealthySuspect
				cell.HealthyDead += r.HealthyDead
				cell.SlowSuspect += r.SlowSuspect
				cell.SlowDead += r.SlowDead
				cell.First = append(cell.First, r.FirstNs)
				cell.Full = append(cell.Full, r.FullNs)
			}
		}
	}
	return cells, nil
}

// Write prints the table as markdown.
func Write(w io.Writer, cells [][]Cell, costs []int64, seeds int) {
	fmt.Fprintf(w, "Sums over seeds 1–%d of 300 s runs (100 members, 4 slow, 96 healthy, 1 crash at 150 s). "+
		"Latencies of the crash: median over the seeds (\"—\": not every seed got there within the run).\n\n", seeds)
	fmt.Fprintln(w, "| recv_cost_ns | configuration | healthy accused | healthy marked dead | healthy marked suspect | slow marked dead | slow marked suspect | first detection | full dissemination |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for c, cost := range costs {
		for v := range Variants {
			cell := cells[v][c]
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %s | %s |\n",
				ms(cost), Variants[v].Name, cell.HealthyAccused, cell.HealthyDead, cell.HealthySuspect, cell.SlowDead, cell.SlowSuspect,
				median(cell.First), median(cell.Full))
		}
	}
}

func ms(ns int64) string { return strconv.FormatInt(ns/1_000_000, 10) + " ms" }

// median of the values, or "—" if any is -1 (not reached).
func median(xs []int64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 || s[0] < 0 {
		return "—"
	}
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return strconv.FormatFloat(float64(m)/1e9, 'f', 1, 64) + " s"
}

func main() {
	seeds := flag.Int("seeds", 3, "seeds per cell (1..N)")
	costsFlag := flag.String("costs", "100,300,600", "recv_cost_ns of the slow members, in ms, comma-separated")
	parallel := flag.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	flag.Parse()
	var costs []int64
	for _, f := range strings.Split(*costsFlag, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "lifeguard: -costs: %q is not a number of milliseconds\n", f)
			os.Exit(2)
		}
		costs = append(costs, n*1_000_000)
	}
	base, err := scenarios.LoadLibrary(Base, builtin.Registry())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cells, err := Table(base, costs, *seeds, *parallel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lifeguard:", err)
		os.Exit(3)
	}
	Write(os.Stdout, cells, costs, *seeds)
}
