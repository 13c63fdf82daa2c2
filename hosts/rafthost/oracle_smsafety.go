package rafthost

import (
	"fmt"
	"maps"

	"github.com/detsim/detsim/hosts"
)

// stateMachineSafety is state_machine_safety: if a member has applied an
// entry at an index, no other member applies a different one there (the
// Raft paper's State Machine Safety). Entries are compared by their
// chain, which covers the entry and everything before it.
type stateMachineSafety struct {
	res     hosts.Result
	applied map[uint64]appliedAt // index → the first entry applied there
}

type appliedAt struct {
	term, chain uint64
	host        string
	cite        hosts.Cite
}

func newStateMachineSafety() *stateMachineSafety {
	return &stateMachineSafety{applied: map[uint64]appliedAt{}}
}

func (o *stateMachineSafety) reads(typ string) bool { return typ == tApply }

func (o *stateMachineSafety) observe(r *rec) error {
	e, err := r.entry()
	if err != nil {
		return err
	}
	first, ok := o.applied[e.index]
	if !ok {
		o.applied[e.index] = appliedAt{e.term, e.chain, r.host, r.cite()}
		return nil
	}
	if first.chain != e.chain {
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s applied the entry of term %d at index %d, %s that of term %d (%s)",
			first.host, first.term, e.index, r.host, e.term, differ(first.term, e.term)), first.cite, r.cite())
	}
	return nil
}

// differ says how two applied entries at one index differ.
func differ(a, b uint64) string {
	if a == b {
		return "same term, different contents or history"
	}
	return "different terms"
}

func (*stateMachineSafety) hold(int64) {}

func (o *stateMachineSafety) finish(int64) {
	o.res.Resolve(hosts.Pass, count(len(o.applied), "index", "indexes")+" applied; every member applied the same entry at each")
}

func (o *stateMachineSafety) result() *hosts.Result { return &o.res }

func (o *stateMachineSafety) clone() oracle {
	return &stateMachineSafety{res: o.res.Clone(), applied: maps.Clone(o.applied)}
}
