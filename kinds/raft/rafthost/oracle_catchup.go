package rafthost

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// catchUp is catches_up_after_heal { within_ns }: once the network has
// settled — the last partition healed, the last kill, restart, pause or
// link fault over — every member connected to a quorum applies each
// committed index within within_ns. An index is known committed once
// some member applies it (the leader's commit index is at least the
// highest such index); a member connected to a quorum is a running
// member whose side of every active partition, among the running
// members, holds a majority of the voters. The obligation an index
// creates is due within_ns after it was first applied, or within_ns
// after the last disruption ended, whichever is later; a member that
// stopped replicating for good (a message it can never receive, a
// follower that stopped applying) misses it and fails.
//
// It judges state, not claims: a member's applied index is what its
// applies, installed snapshots and recovered disk put in its store. The
// verdict also counts the puts never applied by the end, by client, and
// a run that ends less than within_ns after its last disruption is
// Inconclusive: catching up after it was never judged.
type catchUp struct {
	res    hosts.Result
	within int64

	voters  int
	applied map[string]uint64 // member → its applied index
	lastAt  map[string]hosts.Cite
	running map[string]bool
	cuts    []cut
	// connected is the members connected to a quorum, recomputed when
	// the membership or the cuts change.
	connected []string

	top     uint64 // the highest index applied by anyone
	topCite hosts.Cite
	topHost string
	due     []dueIndex // in order of first application
	floor   int64      // the end of the last disruption, plus within
	settled int64      // the end of the last disruption
	judged  int

	unapplied map[string]string // req → the client that issued it, not applied yet
	// failed is the first member found behind, with the reason and
	// evidence: the verdict waits for the end, to say where the member
	// got to and how many puts were never applied.
	failed *lagging
}

type lagging struct {
	host   string
	reason string
	cites  []hosts.Cite
}

// cut is one active partition: no link between a and b.
type cut struct{ a, b map[string]bool }

// dueIndex is a committed index and when it was first applied.
type dueIndex struct {
	index uint64
	at    int64
	host  string
	cite  hosts.Cite
}

func newCatchUp(p CatchesUpAfterHeal) *catchUp {
	return &catchUp{within: p.WithinNs, applied: map[string]uint64{}, lastAt: map[string]hosts.Cite{},
		running: map[string]bool{}, unapplied: map[string]string{}}
}

func (o *catchUp) reads(typ string) bool {
	switch typ {
	case tApply, tSnapInstalled, tNodeStart, tPanic, tMutation, tProposal:
		return true
	}
	return false
}

func (o *catchUp) observe(r *rec) error {
	o.expire(r.at)
	switch r.typ {
	case tProposal:
		req, err := r.str("req")
		if err != nil {
			return err
		}
		o.unapplied[req] = r.host
	case tApply:
		e, err := r.entry()
		if err != nil {
			return err
		}
		if req := r.text("req"); req != "" {
			delete(o.unapplied, req)
		}
		o.advance(r, e.index)
	case tSnapInstalled:
		index, err := r.num("index")
		if err != nil {
			return err
		}
		o.advance(r, index)
	// Each member read with its error returned, alike in shape to every
	// oracle's observe: the members are this record type's.
	case tNodeStart:
		applied, err := r.num("applied")
		if err != nil {
			return err
		}
		voters, err := r.num("voters")
		if err != nil {
			return err
		}
		o.voters = max(o.voters, int(voters))
		o.applied[r.host] = applied
		o.lastAt[r.host] = r.cite()
		o.running[r.host] = true
		o.reconnect()
	case tPanic:
		o.running[r.host] = false
		o.reconnect()
	case tMutation:
		return o.mutation(r)
	}
	return nil
}

// advance notes that r's member has applied up to index.
func (o *catchUp) advance(r *rec, index uint64) {
	o.applied[r.host] = max(o.applied[r.host], index)
	o.lastAt[r.host] = r.cite()
	if index > o.top {
		o.top, o.topCite, o.topHost = index, r.cite(), r.host
		o.due = append(o.due, dueIndex{index, r.at, r.host, r.cite()})
	}
}

// mutation follows the network and the members' lives: every mutation
// is a disruption until it is over (a partition until the next heal, a
// pause or a link fault for its duration).
func (o *catchUp) mutation(r *rec) error {
	kind, err := r.str("kind")
	if err != nil {
		return err
	}
	end := r.at
	switch kind {
	case "Partition":
		c := cut{a: map[string]bool{}, b: map[string]bool{}}
		for _, h := range r.p.Strs("peers_a") {
			c.a[h] = true
		}
		for _, h := range r.p.Strs("peers_b") {
			c.b[h] = true
		}
		o.cuts = append(o.cuts, c)
	case "Heal":
		o.cuts = nil
	case "PeerKill":
		o.running[r.text("peer")] = false
	case "PeerResurrect":
		o.running[r.text("peer")] = true
	}
	if r.p.Has("duration_ns") {
		end += max(r.p.Num("duration_ns"), 0)
	}
	o.reconnect()
	if end > o.settled {
		o.settled = end
		o.floor = max(o.floor, end+o.within)
	}
	return nil
}

// reconnect recomputes the members connected to a quorum.
func (o *catchUp) reconnect() {
	o.connected = o.connected[:0]
	var up []string
	for _, h := range slices.Sorted(maps.Keys(o.running)) {
		if o.running[h] {
			up = append(up, h)
		}
	}
	quorum := max(o.voters, len(o.running))/2 + 1
	for _, h := range up {
		side := 0
		for _, g := range up {
			if !o.separated(h, g) {
				side++
			}
		}
		if side >= quorum {
			o.connected = append(o.connected, h)
		}
	}
}

// separated says whether an active partition cuts h from g.
func (o *catchUp) separated(h, g string) bool {
	for _, c := range o.cuts {
		if c.a[h] && c.b[g] || c.b[h] && c.a[g] {
			return true
		}
	}
	return false
}

// expire judges every index due before t.
func (o *catchUp) expire(t int64) {
	for len(o.due) > 0 && o.failed == nil {
		d := o.due[0]
		deadline := max(d.at+o.within, o.floor)
		if deadline >= t {
			return
		}
		o.due = o.due[1:]
		o.judged++
		for _, h := range o.connected {
			if o.applied[h] >= d.index {
				continue
			}
			o.failed = &lagging{host: h, cites: []hosts.Cite{d.cite, o.lastAt[h]}, reason: fmt.Sprintf("%s, connected to a quorum, had applied only up to index %d by %s; index %d, applied by %s at %s, was due by then (within %s%s)",
				h, o.applied[h], secs(deadline), d.index, d.host, secs(d.at), secs(o.within), o.since(d))}
			o.due = nil
			return
		}
	}
}

// since says what a deadline counts from, when it is not the index's
// first apply.
func (o *catchUp) since(d dueIndex) string {
	if d.at+o.within >= o.floor {
		return ""
	}
	return " of the network settling at " + secs(o.settled)
}

// neverApplied counts the puts issued and never applied, by client.
func (o *catchUp) neverApplied() string {
	if len(o.unapplied) == 0 {
		return ""
	}
	by := map[string]int{}
	for _, h := range o.unapplied { //detlint:allow maprange a count, independent of order
		by[h]++
	}
	var parts []string
	for _, h := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %d", h, by[h]))
	}
	return fmt.Sprintf("; %s never applied by the end (%s)", count(len(o.unapplied), "put", "puts"), strings.Join(parts, ", "))
}

func (o *catchUp) hold(to int64) { o.expire(to + 1) }

func (o *catchUp) finish(endNs int64) {
	o.expire(endNs + 1)
	switch {
	case o.failed != nil:
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s; at the end %s had applied up to index %d, the cluster %d%s",
			o.failed.reason, o.failed.host, o.applied[o.failed.host], o.top, o.neverApplied()), o.failed.cites...)
	case o.floor > endNs:
		o.res.Resolve(hosts.Inconclusive, fmt.Sprintf("the network last settled at %s, less than %s before the end (%s): catching up after it was not judged%s",
			secs(o.settled), secs(o.within), secs(endNs), o.neverApplied()))
	case o.judged == 0:
		o.res.Resolve(hosts.Inconclusive, fmt.Sprintf("no index was committed early enough to judge (by %s)%s", secs(endNs-o.within), o.neverApplied()))
	default:
		o.res.Resolve(hosts.Pass, fmt.Sprintf("the network last settled at %s; %s connected to a quorum at the end, each applied every committed index within %s (%s judged, up to index %d)%s",
			secs(o.settled), count(len(o.connected), "member", "members"), secs(o.within), count(o.judged, "index", "indexes"), o.top, o.neverApplied()))
	}
}

func (o *catchUp) result() *hosts.Result { return &o.res }

func (o *catchUp) clone() oracle {
	c := *o
	c.res = o.res.Clone()
	c.applied, c.lastAt, c.running, c.unapplied = maps.Clone(o.applied), maps.Clone(o.lastAt), maps.Clone(o.running), maps.Clone(o.unapplied)
	c.cuts = slices.Clone(o.cuts) // each cut's sets are never written after it is read
	c.connected = slices.Clone(o.connected)
	c.due = slices.Clone(o.due)
	if o.failed != nil {
		f := *o.failed
		f.cites = slices.Clone(f.cites)
		c.failed = &f
	}
	return &c
}
