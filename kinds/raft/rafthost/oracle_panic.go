package rafthost

import (
	"fmt"

	"github.com/detsim/detsim/hosts"
)

// noPanic is no_raft_panic: etcd raft never panics in a member. etcd
// raft panics when it finds an invariant broken (a commit index past
// the end of the log, a snapshot out of bounds); the host records the
// panic and stops, the run goes on, and this is the verdict that says
// so, with the panic's text and the call it happened in.
type noPanic struct{ res hosts.Result }

func (*noPanic) reads(typ string) bool { return typ == tPanic }

func (o *noPanic) observe(r *rec) error {
	text, err := r.str("panic")
	if err != nil {
		return err
	}
	o.res.Resolve(hosts.Fail, fmt.Sprintf("%s panicked at %s during %s: %s", r.host, secs(r.at), r.text("during"), text), r.cite())
	return nil
}

func (*noPanic) hold(int64) {}

func (o *noPanic) finish(int64) { o.res.Resolve(hosts.Pass, "no member panicked") }

func (o *noPanic) result() *hosts.Result { return &o.res }

func (o *noPanic) clone() oracle { return &noPanic{res: o.res.Clone()} }
