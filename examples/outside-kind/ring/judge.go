package ring

import (
	"fmt"
	"slices"

	"github.com/detsim/detsim/hosts"
)

// SingleHolder is the single_holder assertion: from after_ns (default
// the run's start) on, no two hosts hold the token at once. It passes
// at the run's end if none did, is Inconclusive if no host took the
// token at all, and fails at the first record of a host taking the
// token while another holds it, citing both records.
//
//	[[assertions]]
//	kind = "single_holder"
type SingleHolder struct {
	AfterNs int64
}

// Bind lists the parameters, bound to p's fields: the one definition of
// them the loader decodes into and verdicts.json writes from.
func (p *SingleHolder) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.TimeParam("after_ns", hosts.DefaultRunStart, &p.AfterNs)}
}

func (p SingleHolder) Slots() []hosts.Slot     { return p.Bind() }
func (SingleHolder) Kind() string              { return "single_holder" }
func (SingleHolder) Family() *hosts.Assertions { return family }

// holder is a host holding the token, and the record that says so.
type holder struct {
	host string
	seq  int64
	at   hosts.Cite
}

// judge checks every single_holder assertion of a run over the ring's
// records, in the order they were written. Its state is a slice, not a
// map, so nothing it decides depends on an iteration order.
type judge struct {
	params  []SingleHolder
	results []*hosts.Result
	holders []holder // in the order they took the token
	taken   int
}

func newJudge(params []hosts.AssertionParams) hosts.Judge {
	j := &judge{}
	for _, p := range params {
		j.params = append(j.params, p.(SingleHolder))
		j.results = append(j.results, &hosts.Result{})
	}
	return j
}

func (j *judge) Reads(kindTag, typ string) hosts.Read {
	if kindTag == Tag && (typ == tAcquired || typ == tReleased) {
		return hosts.ReadWhole
	}
	return hosts.ReadSkip
}

func (j *judge) Observe(rec *hosts.EventRec) error {
	p := hosts.Payload(rec.Event)
	if !p.Has("seq") {
		return fmt.Errorf("%s without a seq", rec.Type)
	}
	seq := p.Num("seq")
	j.holders = slices.DeleteFunc(j.holders, func(h holder) bool { return h.host == rec.HostID })
	if rec.Type == tReleased {
		return nil
	}
	j.taken++
	cite := hosts.Cite{Line: rec.Line, TimeNs: rec.TimeNs}
	for i, r := range j.results {
		if r.Resolved || rec.TimeNs < j.params[i].AfterNs || len(j.holders) == 0 {
			continue
		}
		o := j.holders[0]
		r.Resolve(hosts.Fail, fmt.Sprintf("%s took token #%d at %s while %s held token #%d (since %s)",
			rec.HostID, seq, hosts.Seconds(rec.TimeNs), o.host, o.seq, hosts.Seconds(o.at.TimeNs)), o.at, cite)
	}
	j.holders = append(j.holders, holder{host: rec.HostID, seq: seq, at: cite})
	return nil
}

func (j *judge) Hold(from, to int64) {}

func (j *judge) Finish(endNs int64) {
	for _, r := range j.results {
		switch {
		case r.Resolved:
		case j.taken == 0:
			r.Resolve(hosts.Inconclusive, "no host took the token")
		default:
			r.Resolve(hosts.Pass, fmt.Sprintf("one holder at a time over %d takings of the token", j.taken))
		}
	}
}

func (j *judge) Results() []*hosts.Result { return j.results }

func (j *judge) Clone() hosts.Judge {
	c := &judge{params: j.params, holders: slices.Clone(j.holders), taken: j.taken}
	for _, r := range j.results {
		rc := r.Clone()
		c.results = append(c.results, &rc)
	}
	return c
}
