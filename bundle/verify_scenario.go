package bundle

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/tomlguard"
)

// MaxScenarioBytes bounds the scenario.toml Verify reads. It is the
// scenario loader's own bound (scenarios.MaxFileBytes; a batch test keeps
// the two equal): a larger scenario.toml could not be rerun, so it could
// not reproduce the run the bundle claims to hold.
const MaxScenarioBytes = 4 << 20

// DownState is the initial_state of a peer that is not running until a
// PeerResurrect. Verify needs it to know which hosts a snapshot request
// finds running; every built-in kind uses it (a batch test checks each
// kind's DownState, and that no kind's default state is it).
const DownState = "down"

// runScenario is what Verify reads of a bundle's scenario.toml: the
// fully merged scenario with the seed used (scenarios.Scenario.TOML).
// Verify decodes only these keys and leaves the rest to the loader; it
// does not import the scenarios package, which sits above bundle.
type runScenario struct {
	Seed           int64 `toml:"seed"` // absent: 0, as the loader reads it
	DurationNs     int64 `toml:"duration_ns"`
	EarlyTerminate bool  `toml:"early_terminate_on_all_assertions_resolved"`
	Peers          []struct {
		ID           string `toml:"id"`
		InitialState string `toml:"initial_state"`
	} `toml:"peers"`
	Mutations []struct {
		AtNs int64  `toml:"at_ns"`
		Kind string `toml:"kind"`
		Peer string `toml:"peer"`
	} `toml:"mutations"`
	Snapshots []struct {
		AtNs int64 `toml:"at_ns"`
	} `toml:"snapshots"`
}

// readRunScenario reads and decodes scenario.toml through root, refusing
// a non-regular file, one over MaxScenarioBytes and one nested past the
// loader's bound before decoding, and a scenario the loader would reject
// in any way Verify's own checks depend on.
func readRunScenario(root *os.Root) (*runScenario, error) {
	f, err := openStored(root, ScenarioFile, ScenarioFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readBounded(f, ScenarioFile, MaxScenarioBytes)
	if err != nil {
		return nil, err
	}
	if err := tomlguard.Check(data); err != nil {
		return nil, err
	}
	var sc runScenario
	if _, err := toml.Decode(string(data), &sc); err != nil {
		return nil, err
	}
	switch {
	case sc.Seed < 0:
		return nil, fmt.Errorf("seed %d is negative", sc.Seed)
	case sc.DurationNs <= 0:
		return nil, fmt.Errorf("duration_ns %d is not positive", sc.DurationNs)
	case len(sc.Peers) == 0:
		return nil, fmt.Errorf("no [[peers]]")
	}
	seen := make(map[string]bool, len(sc.Peers))
	for _, p := range sc.Peers {
		if !hosts.ValidPeerID(p.ID) {
			return nil, fmt.Errorf("peer id %q is not a peer id ([A-Za-z0-9_-]{1,64})", p.ID)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("peer %q is declared twice", p.ID)
		}
		seen[p.ID] = true
	}
	for i, s := range sc.Snapshots {
		if s.AtNs < 0 || s.AtNs > sc.DurationNs {
			return nil, fmt.Errorf("snapshots[%d].at_ns %d is outside the run [0, %d]", i, s.AtNs, sc.DurationNs)
		}
	}
	return &sc, nil
}

// snapshotPlan is which snapshot files a run of a scenario writes.
type snapshotPlan struct {
	hosts   []string // peer ids sorted: the engine's host order
	hostIdx map[string]int
	at      []int64 // at_ns of each request, by seq
	// running[seq][h] reports whether request seq finds host h running.
	running [][]bool
}

// planSnapshots works out, from the scenario alone, which hosts each
// snapshot request finds running. The engine asks every running host, in
// host (peer id) order, when a request pops; requests pop in (at_ns,
// declared index) order, after every mutation due at the same instant
// (the engine queues mutations first). A host runs from the start unless
// its initial_state is DownState; PeerKill stops a running host and
// PeerResurrect always leaves it running. Nothing else starts or stops
// a host: a halted host still answers snapshots.
func planSnapshots(sc *runScenario) *snapshotPlan {
	p := &snapshotPlan{hostIdx: make(map[string]int, len(sc.Peers))}
	for _, peer := range sc.Peers {
		p.hosts = append(p.hosts, peer.ID)
	}
	slices.Sort(p.hosts)
	for i, id := range p.hosts {
		p.hostIdx[id] = i
	}
	up := make([]bool, len(p.hosts))
	for _, peer := range sc.Peers {
		up[p.hostIdx[peer.ID]] = peer.InitialState != DownState
	}

	type change struct {
		at   int64
		host int
		up   bool
	}
	var changes []change
	for _, m := range sc.Mutations {
		h, ok := p.hostIdx[m.Peer]
		if !ok || (m.Kind != "PeerKill" && m.Kind != "PeerResurrect") {
			continue
		}
		changes = append(changes, change{m.AtNs, h, m.Kind == "PeerResurrect"})
	}
	// Stable: mutations due at one instant apply in declared order.
	slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })

	order := make([]int, len(sc.Snapshots))
	p.at = make([]int64, len(sc.Snapshots))
	for i, s := range sc.Snapshots {
		order[i] = i
		p.at[i] = s.AtNs
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.at[a], p.at[b]) })
	p.running = make([][]bool, len(sc.Snapshots))
	next := 0
	for _, seq := range order {
		for next < len(changes) && changes[next].at <= p.at[seq] {
			up[changes[next].host] = changes[next].up
			next++
		}
		p.running[seq] = slices.Clone(up)
	}
	return p
}

// snapshotRef is a snapshot file named by its host and request.
type snapshotRef struct {
	path string
	host int
	seq  int
}

// parseSnapshotPath splits "snapshots/<host>/<seq>.json", seq a decimal
// number without leading zeros as the writer names it.
func parseSnapshotPath(rel string) (host string, seq int, ok bool) {
	rest, ok := strings.CutPrefix(rel, SnapshotsDir+"/")
	if !ok {
		return "", 0, false
	}
	host, file, ok := strings.Cut(rest, "/")
	if !ok || !hosts.ValidPeerID(host) {
		return "", 0, false
	}
	num, ok := strings.CutSuffix(file, ".json")
	if !ok || num == "" || (len(num) > 1 && num[0] == '0') {
		return "", 0, false
	}
	seq, err := strconv.Atoi(num)
	if err != nil || seq < 0 || strconv.Itoa(seq) != num {
		return "", 0, false
	}
	return host, seq, true
}
