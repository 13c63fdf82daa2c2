package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// mutationParams lists each §5.5 variant's parameter keys, besides at_ns
// and kind.
var mutationParams = map[network.MutationKind][]string{
	network.Partition:     {"peers_a", "peers_b"},
	network.Heal:          {},
	network.LatencySpike:  {"links", "factor_x100", "duration_ns"},
	network.LossBurst:     {"links", "prob_ppm", "duration_ns"},
	network.RelayBuffer:   {"links", "floor_ns", "duration_ns"},
	network.PeerKill:      {"peer"},
	network.PeerResurrect: {"peer", "preserve_state"},
	network.PeerPause:     {"peer", "duration_ns"},
	network.Cancel:        {"peer"},
}

func mutationKindNames() string {
	names := make([]string, 0, len(mutationParams))
	for k := network.Partition; k <= network.Cancel; k++ {
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}

// mutations validates [[mutations]] and keeps them in declared order.
func (c *checker) mutations(top fields) {
	entries, _, _ := top.tableArray("mutations")
	var out []network.Mutation
	var at []int // the declared index of each entry of out
	for i, e := range entries {
		f := fields{r: c.r, prefix: fmt.Sprintf("mutations[%d].", i), tbl: e}
		before := len(*c.r.errs)
		m := c.mutation(f)
		if len(*c.r.errs) == before {
			out = append(out, m)
			at = append(at, i)
		}
	}
	c.lives(out, at)
	c.s.Mutations = out
}

// lives rejects a PeerKill of a peer that is not running and a
// PeerResurrect of one that is (issue 9 §3): the engine would make the
// first a silent no-op and the second a hidden restart. A PeerPause of a
// peer that is not running is rejected for the same reason (issue 14). It walks the
// mutations in the order the engine applies them — by at_ns, then
// declared order, as the (time, seq) queue pops entries enqueued in
// declared order — from each peer's initial_state (the kind's DownState
// is not running). Halt is a host's own decision and does not count: a
// halted host is still running. muts are valid mutations, decl their
// declared indices.
func (c *checker) lives(muts []network.Mutation, decl []int) {
	type life struct {
		running bool
		by      int // declared index of the mutation that set running; -1 for initial_state
		byAt    int64
	}
	peers := make(map[string]*life, len(c.s.Peers))
	for _, p := range c.s.Peers {
		kind, ok := c.reg.Lookup(p.Kind)
		if !ok {
			continue
		}
		down, _ := hosts.DownStates(kind)
		peers[p.ID] = &life{running: down == "" || p.InitialState != down, by: -1}
	}
	order := make([]int, len(muts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(muts[a].At, muts[b].At) })
	for _, i := range order {
		m := &muts[i]
		if m.Kind != network.PeerKill && m.Kind != network.PeerResurrect && m.Kind != network.PeerPause {
			continue
		}
		l := peers[m.Peer]
		if l == nil {
			continue
		}
		why := func() string {
			if l.by < 0 {
				if l.running {
					return "since the start"
				}
				return fmt.Sprintf("initial_state %q", c.peerState(m.Peer))
			}
			verb := "resurrected"
			if !l.running {
				verb = "killed"
			}
			return fmt.Sprintf("%s by mutations[%d] at %d ns", verb, l.by, l.byAt)
		}
		field := fmt.Sprintf("mutations[%d].peer", decl[i])
		switch {
		case m.Kind == network.PeerKill && !l.running:
			c.r.add(field, "PeerKill of %q at %d ns, which is not running then (%s)", m.Peer, m.At, why())
		case m.Kind == network.PeerResurrect && l.running:
			c.r.add(field, "PeerResurrect of %q at %d ns, which is already running (%s)", m.Peer, m.At, why())
		case m.Kind == network.PeerPause && !l.running:
			c.r.add(field, "PeerPause of %q at %d ns, which is not running then (%s)", m.Peer, m.At, why())
		case m.Kind == network.PeerPause:
			// A pause leaves the peer running; overlapping pauses merge.
		default:
			l.running, l.by, l.byAt = m.Kind == network.PeerResurrect, decl[i], m.At
		}
	}
}

// peerState is the initial_state of the declared peer id.
func (c *checker) peerState(id string) string {
	i, _ := slices.BinarySearchFunc(c.s.Peers, id, func(p Peer, id string) int { return strings.Compare(p.ID, id) })
	return c.s.Peers[i].InitialState
}

func (c *checker) mutation(f fields) network.Mutation {
	var m network.Mutation
	m.At, _ = c.atTime(f, "at_ns", true)
	tag, ok := f.str("kind", true)
	if !ok {
		return m
	}
	kind, known := network.ParseMutationKind(tag)
	if !known {
		f.add("kind", "unknown mutation kind %q (one of: %s)", tag, mutationKindNames())
		return m
	}
	m.Kind = kind
	f.checkKeys(append([]string{"at_ns", "kind"}, mutationParams[kind]...)...)

	switch kind {
	case network.Partition:
		var okA, okB bool
		m.PeersA, okA = c.peerList(f, "peers_a", true)
		m.PeersB, okB = c.peerList(f, "peers_b", true)
		if okA && okB {
			inA := make(map[string]bool, len(m.PeersA))
			for _, id := range m.PeersA {
				inA[id] = true
			}
			for _, id := range m.PeersB {
				if inA[id] {
					f.add("peers_b", "peer %q is on both sides of the partition", id)
				}
			}
		}
	case network.Heal:
	case network.LatencySpike:
		m.Links = c.edgeList(f, "links")
		m.FactorX100, _ = f.integer("factor_x100", 1, MaxFactorX100, true)
		m.DurationNs, _ = f.integer("duration_ns", 1, MaxTimeNs, true)
	case network.LossBurst:
		m.Links = c.edgeList(f, "links")
		m.ProbPPM, _ = f.integer("prob_ppm", 0, MaxPPM, true)
		m.DurationNs, _ = f.integer("duration_ns", 1, MaxTimeNs, true)
	case network.RelayBuffer:
		m.Links = c.edgeList(f, "links")
		m.FloorNs, _ = f.integer("floor_ns", 0, MaxTimeNs, true)
		m.DurationNs, _ = f.integer("duration_ns", 1, MaxTimeNs, true)
	case network.PeerKill:
		m.Peer, _ = c.peerRef(f, "peer")
	case network.PeerResurrect:
		m.Peer, _ = c.peerRef(f, "peer")
		m.PreserveState, _ = f.boolean("preserve_state")
	case network.PeerPause:
		m.Peer, _ = c.peerRef(f, "peer")
		m.DurationNs, _ = f.integer("duration_ns", 1, MaxTimeNs, true)
	case network.Cancel:
		m.Peer, _ = c.peerRef(f, "peer")
		c.cancellable(f, m.Peer)
	}
	return m
}

// edgeList reads key as a non-empty array of inline tables {from, to},
// each naming an existing directed edge by exact peer ids.
func (c *checker) edgeList(f fields, key string) []network.Edge {
	raw, present := f.tbl[key]
	if !present {
		f.add(key, "missing (required: an array of { from = \"a\", to = \"b\" })")
		return nil
	}
	arr, isArr := raw.([]any)
	if !isArr {
		f.add(key, "must be an array of { from = \"a\", to = \"b\" }, got %s", describe(raw))
		return nil
	}
	if len(arr) == 0 {
		f.add(key, "must name at least one link")
		return nil
	}
	out := make([]network.Edge, 0, len(arr))
	seen := make(map[network.Edge]bool, len(arr))
	for i, e := range arr {
		t, isTable := e.(map[string]any)
		if !isTable {
			f.add(fmt.Sprintf("%s[%d]", key, i), "must be a table { from = \"a\", to = \"b\" }, got %s", describe(e))
			continue
		}
		ef := fields{r: f.r, prefix: fmt.Sprintf("%s%s[%d].", f.prefix, key, i), tbl: t}
		ef.checkKeys("from", "to")
		from, okF := c.peerRef(ef, "from")
		to, okT := c.peerRef(ef, "to")
		if !okF || !okT {
			continue
		}
		edge := network.Edge{From: from, To: to}
		switch {
		case c.edgesOK && !c.hasEdge(edge):
			f.add(fmt.Sprintf("%s[%d]", key, i), "there is no link %s → %s in this scenario", from, to)
		case seen[edge]:
			f.add(fmt.Sprintf("%s[%d]", key, i), "link %s → %s is listed twice", from, to)
		default:
			seen[edge] = true
			out = append(out, edge)
		}
	}
	return out
}

// cancellable rejects a Cancel aimed at a peer whose kind does not take
// one (hosts.Canceller): the engine would have nothing to deliver
// it to, and a silent no-op hides a scenario mistake.
func (c *checker) cancellable(f fields, id string) {
	for _, p := range c.s.Peers {
		if p.ID != id {
			continue
		}
		if k, ok := c.reg.Lookup(p.Kind); ok && !hosts.IsCancellable(k) {
			f.add("peer", "Cancel of %q, whose kind %q takes no Cancel", id, p.Kind)
		}
	}
}
