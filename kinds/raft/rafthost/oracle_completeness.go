package rafthost

import (
	"fmt"
	"maps"
	"slices"

	"github.com/detsim/detsim/hosts"
)

// leaderCompleteness is leader_completeness: an entry committed in a
// term is in the log of every leader of a later term (the Raft paper's
// Leader Completeness). An entry is known committed once some member
// applies it; when a member becomes leader, its log must hold the
// highest entry committed so far, with the same chain (so every entry
// before it too). Each member's log is the one it actually has: followed
// through its log_append records from the highest committed index on
// (what lies below is never asked about again; an append that replaces
// a suffix truncates it), replaced by an installed snapshot, and, at
// each start, set to what the disk holds — empty, or, recovered, ending
// at the node_start's last_index with its last_chain — so a log that
// lost entries in a crash is judged without them.
type leaderCompleteness struct {
	res     hosts.Result
	top     appliedAt // the highest committed entry: its index is topIndex
	topIdx  uint64
	logs    map[string]*memberLog
	leaders int
}

// memberLog is a member's log from start on: chains[i] is the chain at
// index start+i.
type memberLog struct {
	start  uint64
	chains []uint64
}

func emptyLog() *memberLog { return &memberLog{chains: []uint64{0}} }

func (l *memberLog) last() uint64 { return l.start + uint64(len(l.chains)) - 1 }

func (l *memberLog) at(i uint64) (uint64, bool) {
	if i < l.start || i > l.last() {
		return 0, false
	}
	return l.chains[i-l.start], true
}

// write puts chains at first on, replacing what was there from first.
func (l *memberLog) write(first uint64, chains []uint64) {
	if first <= l.start || first > l.last()+1 {
		// What comes before first is not followed (below the committed
		// index, or not yet seen): the log is known from first. Copied
		// into the log's own array, which nothing else holds (clone
		// copies it), rather than into a new one at each append.
		l.start, l.chains = first, append(l.chains[:0], chains...)
		return
	}
	l.chains = append(l.chains[:first-l.start], chains...)
}

// recovered makes the log what a recovered disk holds: it ends at last,
// whose chain is chain. What the records said lay beyond is gone; what
// they said lay before is kept if the chain at last agrees (it covers
// every entry before it), and otherwise not known.
func (l *memberLog) recovered(last, chain uint64) {
	if c, ok := l.at(last); ok && c == chain {
		l.chains = l.chains[:last-l.start+1]
		return
	}
	l.start, l.chains = last, []uint64{chain}
}

// forget drops what lies below index i (kept: i itself). What is kept
// moves to the front of the log's own array, which nothing else holds
// (clone copies it): a new array at every log_append was a twentieth
// of the run's allocations.
func (l *memberLog) forget(i uint64) {
	if i > l.start && i <= l.last() {
		l.chains = l.chains[:copy(l.chains, l.chains[i-l.start:])]
		l.start = i
	}
}

func newLeaderCompleteness() *leaderCompleteness {
	return &leaderCompleteness{logs: map[string]*memberLog{}}
}

func (o *leaderCompleteness) reads(typ string) bool {
	switch typ {
	case tApply, tLogAppend, tSnapInstalled, tNodeStart, tRoleChange:
		return true
	}
	return false
}

func (o *leaderCompleteness) log(host string) *memberLog {
	l, ok := o.logs[host]
	if !ok {
		l = emptyLog()
		o.logs[host] = l
	}
	return l
}

func (o *leaderCompleteness) observe(r *rec) error {
	switch r.typ {
	case tApply:
		e, err := r.entry()
		if err != nil || e.index <= o.topIdx {
			return err
		}
		o.topIdx, o.top = e.index, appliedAt{term: e.term, chain: e.chain, host: r.host, cite: r.cite()}
	case tLogAppend:
		a, err := r.appended()
		if err != nil {
			return err
		}
		l := o.log(r.host)
		l.write(a.First, a.Chains)
		l.forget(o.topIdx)
	// Members read with their errors returned, as in every oracle's
	// observe: the members are this record type's.
	case tSnapInstalled:
		index, err := r.num("index")
		if err != nil {
			return err
		}
		chain, err := r.chain("chain")
		if err != nil {
			return err
		}
		o.logs[r.host] = &memberLog{start: index, chains: []uint64{chain}}
	// The same reading of members, for node_start's.
	case tNodeStart:
		if r.text("disk") == diskEmpty {
			o.logs[r.host] = emptyLog()
			return nil
		}
		last, err := r.num("last_index")
		if err != nil {
			return err
		}
		chain, err := r.chain("last_chain")
		if err != nil {
			return err
		}
		o.log(r.host).recovered(last, chain)
	case tRoleChange:
		if r.text("to") != "leader" {
			return nil
		}
		term, err := r.num("term")
		if err != nil {
			return err
		}
		o.leaders++
		o.check(r, term)
	}
	return nil
}

// check judges a member that became leader of term.
func (o *leaderCompleteness) check(r *rec, term uint64) {
	if o.topIdx == 0 {
		return
	}
	l := o.log(r.host)
	chain, ok := l.at(o.topIdx)
	switch {
	case !ok && l.last() < o.topIdx:
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s became leader of term %d with its log ending at index %d, but index %d (term %d) was committed: %s applied it at %s",
			r.host, term, l.last(), o.topIdx, o.top.term, o.top.host, secs(o.top.cite.TimeNs)), o.top.cite, r.cite())
	case ok && chain != o.top.chain:
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s became leader of term %d holding another entry at index %d than the one committed there (term %d, applied by %s at %s)",
			r.host, term, o.topIdx, o.top.term, o.top.host, secs(o.top.cite.TimeNs)), o.top.cite, r.cite())
	}
	// !ok with the log starting past it: a snapshot covers the index.
}

func (*leaderCompleteness) hold(int64) {}

func (o *leaderCompleteness) finish(int64) {
	o.res.Resolve(hosts.Pass, fmt.Sprintf("%s elected; each held every entry committed before it (up to index %d at the end)", count(o.leaders, "leader", "leaders"), o.topIdx))
}

func (o *leaderCompleteness) result() *hosts.Result { return &o.res }

func (o *leaderCompleteness) clone() oracle {
	c := &leaderCompleteness{res: o.res.Clone(), top: o.top, topIdx: o.topIdx, leaders: o.leaders, logs: make(map[string]*memberLog, len(o.logs))}
	for _, h := range slices.Sorted(maps.Keys(o.logs)) {
		l := o.logs[h]
		c.logs[h] = &memberLog{start: l.start, chains: slices.Clone(l.chains)}
	}
	return c
}
