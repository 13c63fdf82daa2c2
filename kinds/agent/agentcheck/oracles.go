package agentcheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
)

// oracle is every agent-family assertion (docs/assertions.md, "Agent
// oracles"): one checker over the records of the agent peer it names
// (kind_tag agent) — its claims — and the facts its kind checks them
// against: what the provider received and sent (request_received,
// tool_result_received, response_end), what the tools did (tool_state)
// and the engine's mutations (a Cancel, a kill).
type oracle struct {
	base
	kind     string
	peer     string
	withinNs int64
	maxN     int64

	order    []string // effect or tool-use ids, in start order
	started  map[string]mark
	outcomes map[string]int

	cancelAt   *mark
	killed     bool              // the peer is killed: a Cancel cannot reach it
	complete   map[string]int64  // provider call → frames of its complete stream
	carried    map[string]string // provider call → digest of the whole content it carried ("" torn)
	fromPeer   map[string]bool   // provider calls the peer sent
	committed  map[string]bool   // tool call ids a tool committed
	acked      []int64
	ackMarks   map[int64]mark
	attempts   map[int64]int64
	lastByTurn map[int64]lastOutcome
	lastCall   map[string]int64 // model-call id → turn
	// What the provider received, per turn: retry_budget's facts, which
	// an agent that writes no per-attempt records (an outside agent at
	// the edge) cannot leave out.
	received map[int64]int64
	lastReq  map[int64]lastOutcome
}

type lastOutcome struct {
	m            mark
	content      bool
	retryAfterNs int64
}

// agentPayload is the union of the payload members the oracles read.
type agentPayload struct {
	Effect           string   `json:"effect"`
	ID               string   `json:"id"`
	Outcome          string   `json:"outcome"`
	Call             string   `json:"call"`
	State            string   `json:"state"`
	Turn             int64    `json:"turn"`
	Attempt          int64    `json:"attempt"`
	Frames           int64    `json:"frames"`
	Bytes            int64    `json:"bytes"`
	RetryAfterNs     int64    `json:"retry_after_ns"`
	Seq              int64    `json:"seq"`
	ContentDelivered bool     `json:"content_delivered"`
	Complete         bool     `json:"complete"`
	Seqs             []string `json:"seqs"`
	From             string   `json:"from"`
	Content          string   `json:"content"`
}

func newOracle(p hosts.AssertionParams) checker {
	o := &oracle{kind: p.Kind(), started: map[string]mark{}, outcomes: map[string]int{}, complete: map[string]int64{},
		carried: map[string]string{}, fromPeer: map[string]bool{},
		committed: map[string]bool{}, ackMarks: map[int64]mark{}, attempts: map[int64]int64{},
		lastByTurn: map[int64]lastOutcome{}, lastCall: map[string]int64{}, received: map[int64]int64{}, lastReq: map[int64]lastOutcome{}}
	switch p := p.(type) {
	case EffectOutcomeOnce:
		o.peer = p.Peer
	case CancelSettlesWithin:
		o.peer, o.withinNs = p.Peer, p.WithinNs
	case NoTornSuccess:
		o.peer = p.Peer
	case NoLostAck:
		o.peer = p.Peer
	case ToolResultMatched:
		o.peer = p.Peer
	case OutputBounded:
		o.peer, o.maxN = p.Peer, p.MaxBytes
	case RetryBudget:
		o.peer, o.maxN = p.Peer, p.MaxAttempts
	}
	return o
}

func (o *oracle) wants() want { return wantMutations }

// reads lists the record types each kind decodes: the agent's claims
// (kind_tag agent, the peer named) and the facts from the provider and
// the tools.
func (o *oracle) reads(rec *hosts.EventRec) bool {
	if rec.KindTag != agentTag || rec.HostID != o.peer {
		switch {
		case rec.KindTag == provider.Tag && rec.Type == "response_end":
			return o.kind == "no_torn_success"
		case rec.KindTag == provider.Tag && rec.Type == "request_received":
			return o.kind == "effect_outcome_once" || o.kind == "output_bounded" || o.kind == "retry_budget"
		case rec.KindTag == provider.Tag && rec.Type == "tool_result_received":
			return o.kind == "output_bounded"
		case rec.KindTag == tool.Tag && rec.Type == "tool_state":
			return o.kind == "no_torn_success"
		}
		return false
	}
	// One case an assertion, alike in shape: each names the records its
	// oracle reads.
	switch o.kind {
	case "effect_outcome_once":
		return rec.Type == "effect_started" || rec.Type == "effect_outcome"
	case "cancel_settles_within":
		return rec.Type == "cancel_settled" || rec.Type == "episode_end"
	case "no_torn_success":
		return rec.Type == "effect_outcome"
	case "no_lost_ack":
		return rec.Type == "store_ack" || rec.Type == "store_recovered"
	case "tool_result_matched":
		return rec.Type == "tool_use" || rec.Type == "tool_result"
	case "output_bounded":
		return rec.Type == "tool_result_included"
	case "retry_budget":
		return rec.Type == "effect_started" || rec.Type == "effect_outcome"
	}
	return false
}

// onMutation reads the engine's Cancel and kill records: the facts
// cancel_settles_within judges the agent's settling by, whether or not
// the agent recorded that it was asked.
func (o *oracle) onMutation(f mutationFact) {
	if o.kind != "cancel_settles_within" || f.peer != o.peer {
		return
	}
	m := f.at
	switch f.kind {
	case "PeerKill":
		// A killed agent cannot settle; the kill ends what it was doing.
		o.killed, o.cancelAt = true, nil
	case "PeerResurrect":
		o.killed = false
	case "Cancel":
		if !o.killed && o.cancelAt == nil {
			o.cancelAt = &m
		}
	}
}

func (o *oracle) onRecord(rec *hosts.EventRec) {
	m := at(rec)
	if o.kind == "cancel_settles_within" && o.cancelAt != nil && rec.TimeNs-o.cancelAt.TimeNs > o.withinNs {
		o.res.Resolve(hosts.Fail, fmt.Sprintf("cancellation requested at %s has not settled within %s", hosts.Seconds(o.cancelAt.TimeNs), hosts.Seconds(o.withinNs)), *o.cancelAt)
		return
	}
	if !o.reads(rec) {
		return
	}
	var p agentPayload
	if err := json.Unmarshal(rec.Event, &p); err != nil {
		return // the evaluator reports malformed records itself
	}
	fail := func(format string, args ...any) {
		o.res.Resolve(hosts.Fail, fmt.Sprintf(format, args...), m)
	}
	switch o.kind + "/" + rec.Type {
	case "effect_outcome_once/effect_started", "tool_result_matched/tool_use":
		if _, dup := o.started[p.ID]; dup {
			fail("%s %q started twice", rec.Type, p.ID)
			return
		}
		o.started[p.ID] = m
		o.order = append(o.order, p.ID)
	case "effect_outcome_once/effect_outcome", "tool_result_matched/tool_result":
		if _, ok := o.started[p.ID]; !ok {
			fail("%s for %q, which never started", rec.Type, p.ID)
			return
		}
		o.outcomes[p.ID]++
		if o.outcomes[p.ID] > 1 {
			o.res.Resolve(hosts.Fail, fmt.Sprintf("%q has a second %s (%s)", p.ID, rec.Type, p.Outcome), o.started[p.ID], m)
			return
		}
		if !slices.Contains([]string{"ok", "failed", "timed_out", "cancelled"}, p.Outcome) {
			fail("%q ended in %q, not an explicit outcome", p.ID, p.Outcome)
		}
	case "effect_outcome_once/request_received":
		if p.From != o.peer {
			return
		}
		if _, ok := o.started[p.Call]; !ok {
			fail("the provider received request %q from %s, which the agent never recorded as started", p.Call, o.peer)
		}
	case "cancel_settles_within/cancel_settled", "cancel_settles_within/episode_end":
		o.cancelAt = nil
	case "no_torn_success/response_end":
		if p.Complete {
			o.complete[p.Call] = p.Frames
			o.carried[p.Call] = p.Content
		}
	case "no_torn_success/tool_state":
		if p.State == "committed" {
			o.committed[p.Call] = true
		}
	case "no_torn_success/effect_outcome":
		if p.Outcome != "ok" {
			return
		}
		switch p.Effect {
		case "model_call":
			n, ok := o.complete[p.ID]
			switch {
			case !ok || p.Frames > 0 && n != p.Frames:
				fail("model call %q recorded ok, but its stream was not delivered whole (%d frames received; the provider completed it: %v)", p.ID, p.Frames, ok)
			case o.carried[p.ID] == "":
				fail("model call %q recorded ok, but the stream the provider sent carried no whole response (a malformed event, or tool input that does not parse)", p.ID)
			case p.Content != o.carried[p.ID]:
				fail("model call %q recorded ok with content %.12s…, but the stream carried %.12s…: a piece skipped, merged or reordered", p.ID, p.Content, o.carried[p.ID])
			}
		case "tool_call":
			if !o.committed[p.ID] {
				fail("tool call %q recorded ok, but no tool committed it", p.ID)
			}
		}
	case "no_lost_ack/store_ack":
		o.acked = append(o.acked, p.Seq)
		o.ackMarks[p.Seq] = m
	case "no_lost_ack/store_recovered":
		have := map[int64]bool{}
		for _, s := range p.Seqs {
			var n int64
			if _, err := fmt.Sscan(s, &n); err == nil {
				have[n] = true
			}
		}
		for _, s := range o.acked {
			if !have[s] {
				o.res.Resolve(hosts.Fail, fmt.Sprintf("store record %d was acknowledged but is not in the store recovered after the restart", s), o.ackMarks[s], m)
				return
			}
		}
	case "output_bounded/tool_result_included":
		if p.Bytes > o.maxN {
			fail("tool result %q entered request %q with %d bytes, more than max_bytes %d", p.ID, p.Call, p.Bytes, o.maxN)
		}
	case "output_bounded/request_received":
		if p.From == o.peer {
			o.fromPeer[p.Call] = true
		}
	case "output_bounded/tool_result_received":
		if o.fromPeer[p.Call] && p.Bytes > o.maxN {
			fail("request %q carried tool result %q of %d bytes to the provider, more than max_bytes %d", p.Call, p.ID, p.Bytes, o.maxN)
		}
	case "retry_budget/effect_started":
		if p.Effect != "model_call" {
			return
		}
		o.attempts[p.Turn]++
		if n := o.attempts[p.Turn]; n > o.maxN {
			fail("turn %d made %d model calls, more than max_attempts %d", p.Turn, n, o.maxN)
			return
		}
		o.lastCall[p.ID] = p.Turn
		if last, ok := o.lastByTurn[p.Turn]; ok {
			switch {
			case last.content:
				o.res.Resolve(hosts.Fail, fmt.Sprintf("turn %d retried (%q) after the failed attempt had delivered content", p.Turn, p.ID), last.m, m)
			case rec.TimeNs < last.m.TimeNs+last.retryAfterNs:
				o.res.Resolve(hosts.Fail, fmt.Sprintf("turn %d retried (%q) %s after a retry-after of %s", p.Turn, p.ID,
					hosts.Seconds(rec.TimeNs-last.m.TimeNs), hosts.Seconds(last.retryAfterNs)), last.m, m)
			}
		}
	case "retry_budget/request_received":
		// The provider's count of a turn's requests, and the retry-after
		// its answer carried (the edge records it; the simulated
		// provider's answer reaches the agent's own records instead).
		t := callTurn(p.Call)
		if p.From != o.peer || t == 0 {
			return
		}
		o.received[t]++
		if n := o.received[t]; n > o.maxN {
			fail("the provider received %d requests for turn %d, more than max_attempts %d", n, t, o.maxN)
			return
		}
		if last, ok := o.lastReq[t]; ok && rec.TimeNs < last.m.TimeNs+last.retryAfterNs {
			o.res.Resolve(hosts.Fail, fmt.Sprintf("request %s for turn %d came %s after the one answered 429 with a retry-after of %s",
				p.Call, t, hosts.Seconds(rec.TimeNs-last.m.TimeNs), hosts.Seconds(last.retryAfterNs)), last.m, m)
			return
		}
		o.lastReq[t] = lastOutcome{m: m, retryAfterNs: p.RetryAfterNs}
	case "retry_budget/effect_outcome":
		if turn, ok := o.lastCall[p.ID]; ok && p.Effect == "model_call" {
			o.lastByTurn[turn] = lastOutcome{m: m, content: p.ContentDelivered, retryAfterNs: p.RetryAfterNs}
		}
	}
}

func (o *oracle) finish(endNs int64) {
	switch o.kind {
	case "effect_outcome_once", "tool_result_matched":
		for _, id := range o.order {
			if o.outcomes[id] == 0 {
				what := "effect"
				if o.kind == "tool_result_matched" {
					what = "tool use"
				}
				o.res.Resolve(hosts.Fail, fmt.Sprintf("%s %q never ended in an outcome", what, id), o.started[id])
				return
			}
		}
		o.res.Resolve(hosts.Pass, fmt.Sprintf("all %d each ended in exactly one outcome", len(o.order)))
	case "cancel_settles_within":
		if o.cancelAt != nil {
			if endNs-o.cancelAt.TimeNs > o.withinNs {
				o.res.Resolve(hosts.Fail, fmt.Sprintf("cancellation requested at %s never settled", hosts.Seconds(o.cancelAt.TimeNs)), *o.cancelAt)
			} else {
				o.res.Resolve(hosts.Inconclusive, fmt.Sprintf("the run ended before the cancellation at %s settled or its bound passed", hosts.Seconds(o.cancelAt.TimeNs)), *o.cancelAt)
			}
			return
		}
		o.res.Resolve(hosts.Pass, "every cancellation settled within "+hosts.Seconds(o.withinNs))
	case "no_torn_success":
		o.res.Resolve(hosts.Pass, fmt.Sprintf("every ok outcome was a whole stream or a committed tool run (%d streams, %d tool runs completed)",
			len(o.complete), len(o.committed)))
	case "no_lost_ack":
		o.res.Resolve(hosts.Pass, fmt.Sprintf("%d acknowledged records, none lost across a recovery", len(o.acked)))
	case "output_bounded":
		o.res.Resolve(hosts.Pass, fmt.Sprintf("every tool result entered its request within %d bytes", o.maxN))
	case "retry_budget":
		most := int64(0)
		for _, n := range slices.Sorted(maps.Values(o.attempts)) {
			most = max(most, n)
		}
		for _, n := range slices.Sorted(maps.Values(o.received)) {
			most = max(most, n)
		}
		o.res.Resolve(hosts.Pass, fmt.Sprintf("at most %d model calls per turn, within max_attempts %d; no retry after content or before retry-after", most, o.maxN))
	}
}

func (o *oracle) clone() checker {
	d := *o
	d.res = o.res.Clone()
	d.order = slices.Clone(o.order)
	d.started = maps.Clone(o.started)
	d.outcomes = maps.Clone(o.outcomes)
	if o.cancelAt != nil {
		c := *o.cancelAt
		d.cancelAt = &c
	}
	d.complete = maps.Clone(o.complete)
	d.carried = maps.Clone(o.carried)
	d.fromPeer = maps.Clone(o.fromPeer)
	d.committed = maps.Clone(o.committed)
	d.acked = slices.Clone(o.acked)
	d.ackMarks = maps.Clone(o.ackMarks)
	d.attempts = maps.Clone(o.attempts)
	d.lastByTurn = maps.Clone(o.lastByTurn)
	d.lastCall = maps.Clone(o.lastCall)
	d.received = maps.Clone(o.received)
	d.lastReq = maps.Clone(o.lastReq)
	return &d
}
