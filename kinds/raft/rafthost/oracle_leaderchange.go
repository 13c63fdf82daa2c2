package rafthost

import (
	"fmt"

	"github.com/detsim/detsim/hosts"
)

// noLeaderChange is no_leader_change { window_start_ns, window_end_ns }:
// in the window no election begins — no member becomes a candidate,
// which every new term needs — and no leader steps down. A pre-candidate
// is no election: with PreVote a member cut off asks whether it could
// win and, hearing no, disturbs nobody. It is what PreVote promises a
// cluster a partitioned member rejoins (raft thesis §9.6).
type noLeaderChange struct {
	res        hosts.Result
	start, end int64
}

func newNoLeaderChange(p NoLeaderChange) *noLeaderChange {
	return &noLeaderChange{start: p.WindowStartNs, end: p.WindowEndNs}
}

func (o *noLeaderChange) reads(typ string) bool { return typ == tRoleChange }

func (o *noLeaderChange) observe(r *rec) error {
	if r.at < o.start || r.at > o.end {
		return nil
	}
	term, err := r.num("term")
	if err != nil {
		return err
	}
	from, to := r.text("from"), r.text("to")
	switch {
	case to == "candidate":
		o.res.Resolve(hosts.Fail, fmt.Sprintf("an election began at %s: %s became a candidate for term %d", secs(r.at), r.host, term), r.cite())
	case from == "leader":
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s stopped leading at %s (term %d, now %s)", r.host, secs(r.at), term, to), r.cite())
	}
	return nil
}

func (o *noLeaderChange) hold(to int64) {
	if to >= o.end {
		o.finish(to)
	}
}

func (o *noLeaderChange) finish(int64) {
	o.res.Resolve(hosts.Pass, fmt.Sprintf("no election began and no leader stepped down from %s to %s", secs(o.start), secs(o.end)))
}

func (o *noLeaderChange) result() *hosts.Result { return &o.res }

func (o *noLeaderChange) clone() oracle { c := *o; c.res = o.res.Clone(); return &c }
