package rafthost

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/detsim/detsim/hosts"
)

// TestJudge_ValuesAsJSON holds the judge to what it concludes from a
// record's JSON when it reads the record as the value its host built
// (ReadsValue: a batch run or a sweep's seed): the same verdicts, reasons,
// evidence and errors, for a run that passes and for each way the
// records it reads by value can fail — two members applying different
// entries at one index, two logs disagreeing, a put never applied, a
// log_append whose terms do not cover its range, and an index too long
// for the JSON reader.
func TestJudge_ValuesAsJSON(t *testing.T) {
	params := []hosts.AssertionParams{ElectionSafety{}, LogMatching{}, LeaderCompleteness{}, StateMachineSafety{},
		ProposalCommitsWithin{AfterNs: 0, WithinNs: 50}, NoRaftPanic{}, CatchesUpAfterHeal{WithinNs: 1000}}
	type record struct {
		at   int64
		host string
		ev   hosts.Event
	}
	start := func(h string) record { return record{0, h, &nodeStart{disk: diskEmpty, voters: 3}} }
	base := []record{
		start("a"), start("b"), start("c"),
		{1, "a", &roleChange{term: 1, from: "candidate", to: "leader", lead: "a"}},
		{2, "a", &proposalEv{req: "a#1", to: "a", key: "k", bytes: 9}},
		{3, "a", &logAppend{first: 1, last: 2, terms: []uint64{1, 1}, chains: []uint64{0xa1, 0xa2}}},
		{4, "b", &logAppend{first: 1, last: 2, terms: []uint64{1, 1}, chains: []uint64{0xa1, 0xa2}}},
		{5, "a", &apply{index: 1, term: 1, chain: 0xa1, op: opNoop}},
		{6, "a", &apply{index: 2, term: 1, chain: 0xa2, op: opPut, req: "a#1", key: "k", value: "v", cmd: 7, state: 8}},
		{7, "b", &apply{index: 1, term: 1, chain: 0xa1, op: opNoop}},
	}
	cases := map[string][]record{
		"passes": base,
		"different entries applied": append(base[:len(base):len(base)],
			record{8, "b", &apply{index: 2, term: 1, chain: 0xa2, op: opPut, req: "a#1", key: "k", value: "w", cmd: 9, state: 10}}),
		"logs disagree": append(base[:len(base):len(base)],
			record{8, "c", &logAppend{first: 1, last: 2, terms: []uint64{1, 1}, chains: []uint64{0xa1, 0xbad}}}),
		"a put never applied": append(base[:len(base):len(base)],
			record{8, "a", &proposalEv{req: "a#2", to: "a", key: "k", bytes: 9}}),
		"terms short of the range": append(base[:len(base):len(base)],
			record{8, "c", &logAppend{first: 3, last: 4, terms: []uint64{1}, chains: []uint64{1, 2}}}),
		"an index of 19 digits": append(base[:len(base):len(base)],
			record{8, "c", &apply{index: 1e18, term: 1e18 + 1, chain: 3, op: opNoop}}),
	}
	for name, recs := range cases {
		t.Run(name, func(t *testing.T) {
			judges := [2]hosts.Judge{newJudge(params), newJudge(params)}
			vr, ok := judges[0].(hosts.ValueReader)
			if !ok {
				t.Fatal("the raft judge reads no record as its value")
			}
			var errs [2][]string
			for i, r := range recs {
				for k, j := range judges {
					e := &hosts.EventRec{Line: i + 1, TimeNs: r.at, HostID: r.host, KindTag: Tag, Type: r.ev.Type()}
					if e.Read = j.Reads(Tag, e.Type); e.Read == hosts.ReadSkip {
						continue
					}
					if k == 0 && vr.ReadsValue(Tag, e.Type) {
						e.Value = r.ev
					} else {
						e.Event = r.ev.AppendJSON(nil)
					}
					j.Hold(0, r.at-1)
					if err := j.Observe(e); err != nil {
						errs[k] = append(errs[k], fmt.Sprintf("line %d: %v", i+1, err))
					}
				}
			}
			for _, j := range judges {
				j.Finish(1000)
			}
			if !reflect.DeepEqual(errs[0], errs[1]) {
				t.Errorf("errors from values %q, from JSON %q", errs[0], errs[1])
			}
			for i := range params {
				v, js := judges[0].Results()[i], judges[1].Results()[i]
				if !reflect.DeepEqual(v, js) {
					t.Errorf("%s: from values %+v, from JSON %+v", params[i].Kind(), *v, *js)
				}

			}
		})
	}
}

// TestJudge_ReadsNoMessages holds Reads' shortcut to the oracles: none
// reads a message record, so skipping them unasked loses nothing.
func TestJudge_ReadsNoMessages(t *testing.T) {
	for _, k := range family.Kinds {
		_, params := k.Fresh()
		o := construct(params())
		for _, typ := range []string{tSent, tReceived} {
			if o.reads(typ) {
				t.Errorf("%s reads %s: the judge's Reads skips it", k.Name, typ)
			}
		}
	}
}
