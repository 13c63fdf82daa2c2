package rafthost

import (
	"fmt"
	"maps"

	"github.com/detsim/detsim/hosts"
)

// electionSafety is election_safety: at most one member becomes leader
// in a term (the Raft paper's Election Safety), and, what it rests on,
// no member grants two candidates its vote in one term. A pre-vote is
// not a vote: granting several is allowed.
type electionSafety struct {
	res     hosts.Result
	leaders map[uint64]seen   // term → the first member to lead it
	votes   map[hostTerm]seen // (member, term) → the first vote it granted
}

type hostTerm struct {
	host string
	term uint64
}

// seen is a value and the record that first showed it.
type seen struct {
	who  string
	cite hosts.Cite
}

func newElectionSafety() *electionSafety {
	return &electionSafety{leaders: map[uint64]seen{}, votes: map[hostTerm]seen{}}
}

// reads and observe open alike in every oracle: the types and members are
// each one's own.
func (o *electionSafety) reads(typ string) bool { return typ == tRoleChange || typ == tVote }

func (o *electionSafety) observe(r *rec) error {
	term, err := r.num("term")
	if err != nil {
		return err
	}
	if r.typ == tVote {
		cand, err := r.str("candidate")
		if err != nil || r.text("pre") == "true" {
			return err
		}
		k := hostTerm{r.host, term}
		if first, ok := o.votes[k]; !ok {
			o.votes[k] = seen{cand, r.cite()}
		} else if first.who != cand {
			o.res.Resolve(hosts.Fail, fmt.Sprintf("%s voted for %s and for %s in term %d", r.host, first.who, cand, term), first.cite, r.cite())
		}
		return nil
	}
	to, err := r.str("to")
	if err != nil || to != "leader" {
		return err
	}
	if first, ok := o.leaders[term]; !ok {
		o.leaders[term] = seen{r.host, r.cite()}
	} else if first.who != r.host {
		o.res.Resolve(hosts.Fail, fmt.Sprintf("two leaders in term %d: %s from %s, %s from %s", term, first.who, secs(first.cite.TimeNs), r.host, secs(r.at)), first.cite, r.cite())
	}
	return nil
}

func (*electionSafety) hold(int64) {}

func (o *electionSafety) finish(int64) {
	o.res.Resolve(hosts.Pass, count(len(o.leaders), "term", "terms")+" had a leader, each one leader, and no member voted twice in a term")
}

func (o *electionSafety) result() *hosts.Result { return &o.res }

func (o *electionSafety) clone() oracle {
	return &electionSafety{res: o.res.Clone(), leaders: maps.Clone(o.leaders), votes: maps.Clone(o.votes)}
}
