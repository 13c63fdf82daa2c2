// Package swimcheck is the swim kind's assertions (spec §10.1): their
// parameter structs, the membership world every checker shares (every
// observer's view of every member, who is killed) and the checkers,
// behind the hosts.Judge the verdict evaluator hands swim records to.
// The definitions of each kind are in docs/assertions.md.
package swimcheck

import (
	"fmt"
	"iter"
	"math/bits"
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonscan"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// The record types the judge reads: the swim library's own names, and
// the engine's mutation record.
var (
	tTransition = (*swim.StateTransition)(nil).Type()
	tProbeSent  = (*swim.ProbeSent)(nil).Type()
	tProbeAcked = (*swim.ProbeAcked)(nil).Type()
	tProbeTO    = (*swim.ProbeTimedOut)(nil).Type()
	tSent       = (*swim.MessageSent)(nil).Type()
	tBump       = (*swim.SelfIncarnationBump)(nil).Type()
)

const (
	// Tag is the swim kind's tag (kinds/swim/swimhost declares the kind with
	// it).
	Tag       = "swim"
	tagEngine = "engine"
	tMutation = "mutation"
)

// judge evaluates every swim assertion of a run over one world: peer
// ids interned, every observer's view of every member, who is killed.
type judge struct {
	checkers []checker
	results  []*hosts.Result
	world    world
	want     want // what the unresolved checkers need
	resolved bool // a checker resolved since want was computed
	// by lists, per fact (bit of want), the checkers that were
	// unresolved and wanted it when want was computed: a record visits
	// only those, not every checker.
	by    [nWants][]checker
	texts jsonscan.Strings
}

func newJudge(params []hosts.AssertionParams) hosts.Judge {
	j := &judge{world: newWorld()}
	for _, p := range params {
		j.checkers = append(j.checkers, construct(&j.world, p))
	}
	j.bind()
	return j
}

// construct builds the checker of p, one of this package's structs (the
// evaluator hands a family only its own kinds' values).
//
// Every family's judge builds, feeds and clones its checkers in the same
// few lines, and dispatches on its params' types in a switch like this
// one: each is over the family's own checker type and params, which the
// contract (hosts.Judge) leaves to the family.
func construct(w *world, p hosts.AssertionParams) checker {
	switch p := p.(type) {
	case AllAliveAt:
		return newAllAliveAt(w, p)
	case AllAliveThroughout:
		return newAllAliveThroughout(w, p)
	case ConvergenceAfter:
		return newConvergence(w, p)
	case NoFlapWhileProbesOK:
		return newNoFlap(w, p)
	case NoDeadWhenProbesOK:
		return newNoDead(w, p)
	case SelfIncarnationBounded:
		return newSelfIncarnation(w, p)
	case MessageSizeBounded:
		return newMessageSize(w, p)
	case DeadPeerResurrectsWithin:
		return newResurrects(w, p)
	}
	panic(fmt.Sprintf("swimcheck: parameters of type %T", p))
}

// bind points the results at the checkers' (the same for the judge's
// life; a clone has its own) and computes what they want.
func (j *judge) bind() {
	j.results = make([]*hosts.Result, len(j.checkers))
	for i, c := range j.checkers {
		j.results[i] = &c.result().Result
	}
	j.refresh()
}

// refresh recomputes what the unresolved checkers want.
func (j *judge) refresh() {
	j.want, j.resolved = 0, false
	for b := range j.by {
		j.by[b] = j.by[b][:0]
	}
	for _, c := range j.checkers {
		if !c.result().Resolved {
			w := c.wants()
			j.want |= w
			for b := range j.by {
				if w&(1<<b) != 0 {
					j.by[b] = append(j.by[b], c)
				}
			}
		}
	}
}

func (j *judge) Results() []*hosts.Result { return j.results }

// Reads routes by kind_tag: the swim kind's records and the engine's.
func (j *judge) Reads(tag, typ string) hosts.Read {
	if j.want == 0 {
		return hosts.ReadSkip
	}
	switch tag {
	case Tag:
		switch typ {
		case tTransition:
			if j.want&wantViews != 0 {
				// Reading it is checking it: the fast path accepts only
				// one whole valid object of the simulator's own shape.
				return hosts.ReadUnchecked
			}
		case tProbeSent, tProbeAcked, tProbeTO:
			if j.want&wantProbes != 0 {
				return hosts.ReadWhole
			}
		case tSent:
			if j.want&wantMessages != 0 {
				return hosts.ReadWhole
			}
		case tBump:
			if j.want&wantBumps != 0 {
				return hosts.ReadWhole
			}
		}
	case tagEngine:
		if typ == tMutation && j.want&(wantMutations|wantViews) != 0 {
			return hosts.ReadWhole
		}
	default:
		return hosts.ReadSkip
	}
	if j.want&wantRecords != 0 {
		return hosts.ReadEnvelope
	}
	return hosts.ReadSkip
}

// ReadsValue: the swim kind's own records are read from the structs
// kinds/swim/swim built (values.go); the engine's mutation records, a few a
// run, from their JSON.
func (j *judge) ReadsValue(tag, typ string) bool {
	if tag != Tag {
		return false
	}
	switch typ {
	case tTransition, tProbeSent, tProbeAcked, tProbeTO, tSent, tBump:
		return true
	}
	return false
}

// Observe decodes the record if a checker needs its type and hands the
// fact to those that want it.
func (j *judge) Observe(rec *hosts.EventRec) error {
	err := j.observe(rec)
	if j.resolved {
		j.refresh()
	}
	return err
}

func (j *judge) observe(rec *hosts.EventRec) error {
	read := rec.Read
	if read == hosts.ReadSkip {
		return nil
	}
	var p transitionPayload
	if read == hosts.ReadUnchecked && rec.Unchecked {
		var ok bool
		if p, ok = fastTransition(rec.Event, &j.texts); !ok {
			return hosts.ErrRecheck
		}
	}
	if j.want&wantRecords != 0 {
		for c := range j.wanting(wantRecords) {
			c.onRecord(&j.world, rec)
		}
	}
	if read == hosts.ReadEnvelope {
		return nil
	}
	line, t := rec.Line, rec.TimeNs
	switch rec.Type {
	case tTransition:
		var to state
		var err error
		switch {
		case rec.Value != nil:
			p, to, err = valueTransition(rec.Value, rec.HostID, &j.texts)
		case rec.Unchecked:
			p, to, err = checkTransition(p, rec.HostID)
		default:
			p, to, err = decodeTransition(rec.Event, rec.HostID, &j.texts)
		}
		if err != nil {
			return err
		}
		o, s := j.world.internAfter(p.Observer, &j.world.host), j.world.internAfter(p.Subject, &j.world.member)
		cur := view{state: to, incarnation: p.Incarnation, line: line, timeNs: t}
		j.viewChanged(viewChange{line: line, timeNs: t, observer: o, subject: s, was: j.world.setView(o, s, cur), cur: cur})
	case tProbeSent, tProbeAcked, tProbeTO:
		var p probePayload
		var err error
		if v, ok := valueProbe(rec.Value); ok {
			p, err = checkProbe(v, rec.Type, rec.HostID)
		} else {
			p, err = decodeProbe(payload(rec), rec.Type, rec.HostID, &j.texts)
		}
		if err != nil || p.Mode != "direct" {
			return err
		}
		f := probeFact{line: line, timeNs: t, step: probeStepOf(rec.Type), prober: j.world.internAfter(rec.HostID, &j.world.host), target: j.world.intern(p.Target), seq: p.Seq}
		for c := range j.wanting(wantProbes) {
			c.onProbe(&j.world, f)
		}
	case tSent:
		var p messagePayload
		var err error
		if v, ok := valueMessage(rec.Value); ok {
			p, err = checkMessage(v)
		} else {
			p, err = decodeMessage(payload(rec), &j.texts)
		}
		if err != nil {
			return err
		}
		for c := range j.wanting(wantMessages) {
			c.onMessage(messageFact{line: line, timeNs: t, message: p.Message, bytes: p.Bytes})
		}
	case tBump:
		var p bumpPayload
		var err error
		if v, ok := valueBump(rec.Value); ok {
			p, err = checkBump(v)
		} else {
			p, err = decodeBump(payload(rec))
		}
		if err != nil {
			return err
		}
		for c := range j.wanting(wantBumps) {
			c.onBump(bumpFact{line: line, timeNs: t, host: rec.HostID, newInc: p.New})
		}
	case tMutation:
		p, err := decodeMutation(payload(rec), &j.texts)
		if err != nil {
			return err
		}
		j.mutation(line, t, p)
	}
	return nil
}

func probeStepOf(typ string) probeStep {
	switch typ {
	case tProbeSent:
		return probeSent
	case tProbeAcked:
		return probeAcked
	}
	return probeTimedOut
}

// mutation applies a mutation's effect on liveness and views, then tells
// the checkers. A fresh life (PeerResurrect without preserve_state)
// forgets every view the peer held. A PeerKill of a peer already killed
// and a PeerResurrect of a running peer are no-ops, whatever wrote the
// bundle: the scenario loader rejects both, but the judge judges what
// the records say and must not erase views a running peer holds.
func (j *judge) mutation(line int, t int64, p mutationPayload) {
	w := &j.world
	f := mutationFact{line: line, timeNs: t, kind: p.Kind, peer: -1, preserveState: p.PreserveState}
	if p.Peer != "" {
		f.peer = w.intern(p.Peer)
	}
	for _, id := range p.PeersA {
		f.peersA = append(f.peersA, w.intern(id))
	}
	for _, id := range p.PeersB {
		f.peersB = append(f.peersB, w.intern(id))
	}
	switch p.Kind {
	case "PeerKill":
		f.noop = w.killed[f.peer]
		w.killed[f.peer] = true
	case "PeerResurrect":
		f.noop = !w.dead(f.peer)
		w.killed[f.peer] = false
	}
	for c := range j.wanting(wantMutations) {
		c.onMutation(w, f)
	}
	if p.Kind == "PeerResurrect" && !p.PreserveState && !f.noop && int(f.peer) < len(w.views) {
		for s := range int32(len(w.views[f.peer])) {
			if was := w.packed(f.peer, s).state(); was != noView {
				w.setView(f.peer, s, view{})
				j.viewChanged(viewChange{line: line, timeNs: t, observer: f.peer, subject: s, was: was})
			}
		}
	}
}

func (j *judge) viewChanged(c viewChange) {
	for k := range j.wanting(wantViews) {
		k.onView(&j.world, c)
	}
}

// wanting yields the unresolved checkers that want w (one fact), in
// declaration order.
func (j *judge) wanting(w want) iter.Seq[checker] {
	return func(yield func(checker) bool) {
		for _, c := range j.by[bits.TrailingZeros8(uint8(w))] {
			if c.result().Resolved { // by this record, before refresh
				continue
			}
			ok := yield(c)
			j.resolved = j.resolved || c.result().Resolved
			if !ok {
				return
			}
		}
	}
}

// Hold runs before most records (whenever time moves): what the
// checkers want is recomputed only when one resolved.
func (j *judge) Hold(from, to int64) {
	for _, c := range j.checkers {
		if r := c.result(); !r.Resolved {
			c.hold(&j.world, from, to)
			j.resolved = j.resolved || r.Resolved
		}
	}
	if j.resolved {
		j.refresh()
	}
}

func (j *judge) Finish(endNs int64) {
	for _, c := range j.checkers {
		if !c.result().Resolved {
			c.finish(&j.world, endNs)
		}
	}
	j.refresh()
}

func (j *judge) Clone() hosts.Judge {
	c := &judge{world: j.world.clone(), checkers: make([]checker, len(j.checkers))}
	for i, k := range j.checkers {
		c.checkers[i] = k.clone()
	}
	c.bind()
	return c
}

// peerSet is an assertion's named peers: their world indices in the
// order the scenario listed them, and each index's position in that
// order (-1 when not named). It never changes after New, so clones share
// it.
type peerSet struct {
	order []int32
	pos   []int32 // by world index; shorter than the world when later ids are unnamed
}

// newPeerSet interns names in order; a repeated name counts once, at its
// first place (code-built assertions may repeat one; the loader rejects
// that).
func newPeerSet(w *world, names []string) peerSet {
	s := peerSet{}
	var seen []string
	for _, n := range names {
		if slices.Contains(seen, n) {
			continue
		}
		seen = append(seen, n)
		s.order = append(s.order, w.intern(n))
	}
	s.pos = make([]int32, len(w.names))
	for i := range s.pos {
		s.pos[i] = -1
	}
	for p, i := range s.order {
		s.pos[i] = int32(p)
	}
	return s
}

func (s peerSet) has(i int32) bool { return int(i) < len(s.pos) && s.pos[i] >= 0 }
