package rafthost

import (
	"fmt"
	"maps"

	"github.com/detsim/detsim/hosts"
)

// stateMachineSafety is state_machine_safety: every member applies the
// same commands in the same order, and so holds the same store at each
// index (the Raft paper's State Machine Safety), judged from what each
// member applied rather than from its log. Each apply record carries the
// digest of the command the member applied and of its whole store
// after it (disk.put keeps it as each put lands); at every index, both
// must equal those of the first member that applied that index. And
// each member must apply index after index: its next apply is the one
// after the last it applied, or after what a snapshot or its recovered
// disk put in its store.
type stateMachineSafety struct {
	res     hosts.Result
	applied indexed[appliedAt] // index → the first member's apply there
	next    map[string]uint64  // member → the index it applies next (0: not known yet)
}

type appliedAt struct {
	term, chain uint64
	cmd, state  uint64
	host        string
	cite        hosts.Cite
}

func newStateMachineSafety() *stateMachineSafety {
	return &stateMachineSafety{next: map[string]uint64{}}
}

func (o *stateMachineSafety) reads(typ string) bool {
	return typ == tApply || typ == tSnapInstalled || typ == tNodeStart
}

func (o *stateMachineSafety) observe(r *rec) error {
	switch r.typ {
	case tSnapInstalled:
		index, err := r.num("index")
		o.next[r.host] = index + 1
		return err
	case tNodeStart:
		applied, err := r.num("applied")
		o.next[r.host] = applied + 1
		return err
	}
	// Members read with their errors returned, alike in shape to every
	// oracle's observe.
	e, err := r.entry()
	if err != nil {
		return err
	}
	cmd, err := r.chain("cmd")
	if err != nil {
		return err
	}
	state, err := r.chain("state")
	if err != nil {
		return err
	}
	want := o.next[r.host]
	o.next[r.host] = e.index + 1
	first, ok := o.applied.get(e.index)
	if !ok {
		o.applied.put(e.index, appliedAt{e.term, e.chain, cmd, state, r.host, r.cite()})
	}
	switch {
	case ok && first.cmd != cmd:
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s applied another command at index %d than %s did (its entry of term %d, %s's of term %d)",
			r.host, e.index, first.host, e.term, first.host, first.term), first.cite, r.cite())
	case ok && first.state != state:
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s's store after applying index %d differs from %s's after the same index: the same command, applied to another state%s",
			r.host, e.index, first.host, outOfOrder(want, e.index)), first.cite, r.cite())
	case want != 0 && e.index != want:
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s applied index %d when its next was %d: commands out of order", r.host, e.index, want), r.cite())
	}
	return nil
}

// outOfOrder says, for a store that differs, that the member applied
// index out of order, when it did.
func outOfOrder(want, index uint64) string {
	if want == 0 || want == index {
		return ""
	}
	return fmt.Sprintf(" (it applied index %d when its next was %d)", index, want)
}

func (*stateMachineSafety) hold(int64) {}

func (o *stateMachineSafety) finish(int64) {
	o.res.Resolve(hosts.Pass, count(o.applied.len(), "index", "indexes")+" applied; every member applied the same command at each, in order, and held the same store after it")
}

func (o *stateMachineSafety) result() *hosts.Result { return &o.res }

func (o *stateMachineSafety) clone() oracle {
	return &stateMachineSafety{res: o.res.Clone(), applied: o.applied.clone(), next: maps.Clone(o.next)}
}
