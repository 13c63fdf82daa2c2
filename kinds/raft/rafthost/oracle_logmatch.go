package rafthost

import (
	"fmt"
	"maps"

	"github.com/detsim/detsim/hosts"
)

// logMatching is log_matching: if two logs hold an entry with the same
// index and term, they are identical up to it (the Raft paper's Log
// Matching). Each log_append record carries, per entry, its term and
// its chain — the hash of the writer's log up to and including it — so
// two members holding (index, term) with different chains hold
// different prefixes, whichever entry differs. Entries are compared as
// they are written, committed or not: the property is about logs.
type logMatching struct {
	res hosts.Result
	// The first chain seen at each (index, term): in first, the first
	// term seen at each index; in more, another term's.
	first indexed[termChain]
	more  map[indexTerm]chainAt
	n     int // entries compared
}

type indexTerm struct{ index, term uint64 }

type termChain struct {
	term uint64
	at   chainAt
}

type chainAt struct {
	chain uint64
	host  string
	cite  hosts.Cite
}

func newLogMatching() *logMatching { return &logMatching{more: map[indexTerm]chainAt{}} }

func (o *logMatching) reads(typ string) bool { return typ == tLogAppend }

func (o *logMatching) observe(r *rec) error {
	a, err := r.appended()
	if err != nil {
		return err
	}
	for i, c := range a.Chains {
		k := indexTerm{a.First + uint64(i), a.Terms[i]}
		o.n++
		f, ok := o.first.get(k.index)
		first := f.at
		switch {
		case !ok:
			o.first.put(k.index, termChain{k.term, chainAt{c, r.host, r.cite()}})
			continue
		case f.term != k.term:
			if first, ok = o.more[k]; !ok {
				o.more[k] = chainAt{c, r.host, r.cite()}
				continue
			}
		}
		if first.chain != c {
			o.res.Resolve(hosts.Fail, fmt.Sprintf("%s and %s both hold an entry at index %d in term %d, after different logs (chains %016x and %016x)",
				first.host, r.host, k.index, k.term, first.chain, c), first.cite, r.cite())
			return nil
		}
	}
	return nil
}

func (*logMatching) hold(int64) {}

func (o *logMatching) finish(int64) {
	o.res.Resolve(hosts.Pass, count(o.n, "entry", "entries")+" written across the members; every (index, term) held one log prefix")
}

func (o *logMatching) result() *hosts.Result { return &o.res }

func (o *logMatching) clone() oracle {
	return &logMatching{res: o.res.Clone(), first: o.first.clone(), more: maps.Clone(o.more), n: o.n}
}
