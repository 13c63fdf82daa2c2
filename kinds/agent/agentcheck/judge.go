// Package agentcheck is the agent family's assertions (docs/assertions.md,
// "Agent oracles"): each checks what the agent peer it names claims in
// its records against the facts the provider, the tools and the engine
// record. The agent kind declares them (kinds/agent/agent: its hosts.Oracle);
// the evaluator hands their judge the records it reads, by kind_tag.
package agentcheck

import (
	"encoding/json"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
)

// agentTag is the agent kind's tag (kinds/agent/agent declares the kind with
// it and imports this package, so it cannot be imported here).
const agentTag = "agent"

// want is what a checker needs beyond the records it reads itself.
type want uint8

const wantMutations want = 1 // the engine's mutation records, as facts

// checker is one assertion being evaluated. The judge hands it every
// record in stream order (the agent family's with their payloads, the
// rest as their envelopes), then the engine's mutations as facts;
// finish closes the run. Once its result is resolved, a checker is
// never called again.
type checker interface {
	wants() want
	onRecord(rec *hosts.EventRec)
	onMutation(f mutationFact)
	finish(endNs int64)
	result() *hosts.Result
	clone() checker
}

// base gives checkers a no-op onMutation and their result.
type base struct{ res hosts.Result }

func (*base) onMutation(mutationFact) {}
func (b *base) result() *hosts.Result { return &b.res }

// mark is one record cited as evidence.
type mark = hosts.Cite

// at cites rec.
func at(rec *hosts.EventRec) mark { return hosts.Cite{Line: rec.Line, TimeNs: rec.TimeNs} }

// mutationFact is an engine mutation record: its kind (PeerKill,
// PeerResurrect, Cancel) and the peer it names ("" for none).
type mutationFact struct {
	kind, peer string
	at         mark
}

// judge evaluates every agent-family assertion of a run.
type judge struct {
	checkers []checker
	results  []*hosts.Result
	want     want
}

func newJudge(params []hosts.AssertionParams) hosts.Judge {
	j := &judge{}
	for _, p := range params {
		j.checkers = append(j.checkers, construct(p))
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
func construct(p hosts.AssertionParams) checker {
	switch p := p.(type) {
	case ResponseBounded:
		return newResponseBounded(p)
	case TurnOutcomeOnce:
		return newTurnOutcomeOnce(p)
	case NoCommitAfterSettle:
		return newNoCommitAfterSettle(p)
	case ToolRunOnce:
		return newToolRunOnce(p)
	case ToolResultReturned:
		return newToolResultReturned(p)
	case TurnNotRepeated:
		return newTurnNotRepeated(p)
	case ToolDeadlineKept:
		return newToolDeadlineKept(p)
	case NoWorkAfterCancel:
		return newNoWorkAfterCancel(p)
	}
	return newOracle(p)
}

func (j *judge) bind() {
	j.results = make([]*hosts.Result, len(j.checkers))
	j.want = 0
	for i, c := range j.checkers {
		j.results[i] = c.result()
		j.want |= c.wants()
	}
}

func (j *judge) Results() []*hosts.Result { return j.results }

// Reads routes by kind_tag: the agent family's records of the types the
// oracles read, with their payloads; the engine's mutations while a
// checker wants them; every other record's envelope (a pending
// cancellation's deadline passes as time does).
func (j *judge) Reads(tag, typ string) hosts.Read {
	switch {
	case (tag == agentTag || tag == provider.Tag || tag == tool.Tag) && agentRecord(typ):
		return hosts.ReadWhole
	case tag == "engine" && typ == "mutation" && j.want&wantMutations != 0:
		return hosts.ReadWhole
	case tag == "edge" && typ == "control_read":
		// The edge's record that its control endpoint told the agent's
		// harness of a Cancel (no_work_after_cancel).
		return hosts.ReadWhole
	}
	return hosts.ReadEnvelope
}

// agentRecord reports whether an oracle may read a record of type typ.
func agentRecord(typ string) bool {
	switch typ {
	case "effect_started", "effect_outcome", "cancel_requested", "cancel_settled", "response_end", "tool_state",
		"store_ack", "store_recovered", "tool_use", "tool_result", "tool_result_included", "request_received",
		"tool_result_received", "response_aborted", "response_hang", "episode_end", "turn_end":
		return true
	}
	return false
}

// Observe hands the record to every unresolved checker, then, for an
// engine mutation, the mutation as a fact.
func (j *judge) Observe(rec *hosts.EventRec) error {
	for _, c := range j.checkers {
		if !c.result().Resolved {
			c.onRecord(rec)
		}
	}
	if rec.Read != hosts.ReadWhole || rec.KindTag != "engine" || rec.Type != "mutation" {
		return nil
	}
	var p struct {
		Kind string `json:"kind"`
		Peer string `json:"peer"`
	}
	if err := json.Unmarshal(rec.Event, &p); err != nil {
		return err
	}
	f := mutationFact{kind: p.Kind, peer: p.Peer, at: at(rec)}
	for _, c := range j.checkers {
		if c.wants()&wantMutations != 0 && !c.result().Resolved {
			c.onMutation(f)
		}
	}
	return nil
}

// Hold has nothing to do: a pending cancellation's deadline is checked
// at the next record, which cites it.
func (j *judge) Hold(int64, int64) {}

func (j *judge) Finish(endNs int64) {
	for _, c := range j.checkers {
		if !c.result().Resolved {
			c.finish(endNs)
		}
	}
}

func (j *judge) Clone() hosts.Judge {
	c := &judge{checkers: make([]checker, len(j.checkers))}
	for i, k := range j.checkers {
		c.checkers[i] = k.clone()
	}
	c.bind()
	return c
}
