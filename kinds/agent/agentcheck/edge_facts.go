package agentcheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
)

// The oracles of this file judge what the provider and the tools saw —
// requests and their turns, tool runs and the ids they ran, the tool
// results carried back — and the engine's (or the edge's) Cancel and
// kill, never the agent's report alone: an outside agent at the HTTP
// edge writes no per-attempt records, and these are the bugs an agent's
// own account hides (docs/assertions.md, "What the edge saw"). The
// agent family's scenarios have one agent, so every tool run and every
// request is the named peer's (a request names its sender in from).

// factPayload is the union of the fact members these oracles read.
type factPayload struct {
	Call       string `json:"call"`
	ID         string `json:"id"`
	From       string `json:"from"`
	State      string `json:"state"`
	By         string `json:"by"`
	Idempotent bool   `json:"idempotent"`
	Effect     string `json:"effect"`
	Outcome    string `json:"outcome"`
	Turn       int64  `json:"turn"`
	Actions    string `json:"actions"`
}

// callTurn is the turn of a model call or tool run id ("t3.a2",
// "t3.toolu_1": 3), 0 when it names none. The simulated agent and the
// edge both name calls so.
func callTurn(id string) int64 {
	rest, ok := strings.CutPrefix(id, "t")
	if !ok {
		return 0
	}
	n, _, _ := strings.Cut(rest, ".")
	t, err := strconv.ParseInt(n, 10, 64)
	if err != nil || t < 1 {
		return 0
	}
	return t
}

// useOf is the tool use id of a run id ("t3.toolu_1": toolu_1); the
// edge records a returned result by the model's id, the simulated
// provider by the run's.
func useOf(id string) string {
	if callTurn(id) > 0 {
		_, use, _ := strings.Cut(id, ".")
		return use
	}
	return id
}

// decode reads the members of rec these oracles use; false for a
// record that does not parse (the evaluator reports it itself).
func decode(rec *hosts.EventRec) (factPayload, bool) {
	var p factPayload
	return p, json.Unmarshal(rec.Event, &p) == nil
}

func isRequest(rec *hosts.EventRec) bool {
	return rec.KindTag == provider.Tag && rec.Type == "request_received"
}

func isToolState(rec *hosts.EventRec) bool {
	return rec.KindTag == tool.Tag && rec.Type == "tool_state"
}

// toolRunOnce is tool_run_once { peer }: no tool use is run twice — a
// second tool_state started for the same run id (an agent that re-runs
// a tool use after its timeout and cancel, or after a restart re-runs
// a committed turn's tools) — unless the tool that ran it is declared
// idempotent (tool kind_config idempotent = true, which its started
// records carry).
type toolRunOnce struct {
	base
	peer string
	runs map[string]mark // run id → its first start
}

func newToolRunOnce(p ToolRunOnce) checker {
	return &toolRunOnce{peer: p.Peer, runs: map[string]mark{}}
}

func (c *toolRunOnce) wants() want { return 0 }

func (c *toolRunOnce) onRecord(rec *hosts.EventRec) {
	if !isToolState(rec) {
		return
	}
	p, ok := decode(rec)
	if !ok || p.State != "started" || p.Idempotent {
		return
	}
	if first, dup := c.runs[p.Call]; dup {
		c.res.Resolve(hosts.Fail, fmt.Sprintf("tool use %q ran twice (started at %s and again at %s), and tool %s is not declared idempotent",
			useOf(p.Call), hosts.Seconds(first.TimeNs), hosts.Seconds(rec.TimeNs), rec.HostID), first, at(rec))
		return
	}
	c.runs[p.Call] = at(rec)
}

// finish and clone as every checker's, alike in shape: its own pass
// message, its own maps.
func (c *toolRunOnce) finish(int64) {
	c.res.Resolve(hosts.Pass, fmt.Sprintf("every tool use ran at most once (%d runs)", len(c.runs)))
}

// Every checker's clone copies its result and the maps it adds to, alike in
// shape: which maps those are is each checker's own.
func (c *toolRunOnce) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.runs = maps.Clone(c.runs)
	return &d
}

// toolResultReturned is tool_result_returned { peer }: a tool use the
// agent ran has its result carried back to the model (a
// tool_result_received of the provider) by the time the agent asks
// for a later turn. A run its life was killed in owes nothing: the
// fresh life may not know of it.
type toolResultReturned struct {
	base
	peer     string
	ran      map[string]ranUse // tool use id → its run
	returned map[string]bool   // tool use ids some request carried back
	maxTurn  int64             // the latest turn the peer asked for
	lastReq  mark
}

type ranUse struct {
	turn int64
	m    mark
}

func newToolResultReturned(p ToolResultReturned) checker {
	return &toolResultReturned{peer: p.Peer, ran: map[string]ranUse{}, returned: map[string]bool{}}
}

func (c *toolResultReturned) wants() want { return wantMutations }

func (c *toolResultReturned) onRecord(rec *hosts.EventRec) {
	switch {
	case isToolState(rec):
		if p, ok := decode(rec); ok && p.State == "started" {
			if _, seen := c.ran[useOf(p.Call)]; !seen {
				c.ran[useOf(p.Call)] = ranUse{turn: callTurn(p.Call), m: at(rec)}
			}
		}
	case isRequest(rec):
		if p, ok := decode(rec); ok && p.From == c.peer {
			if t := callTurn(p.Call); t > c.maxTurn {
				c.maxTurn, c.lastReq = t, at(rec)
			}
		}
	case rec.KindTag == provider.Tag && rec.Type == "tool_result_received":
		if p, ok := decode(rec); ok {
			c.returned[useOf(p.ID)] = true
		}
	}
}

func (c *toolResultReturned) onMutation(f mutationFact) {
	if f.peer == c.peer && f.kind == "PeerKill" {
		// A run the kill cut off owes no result: forget it (whichever
		// order they go in, the same ones go).
		maps.DeleteFunc(c.ran, func(id string, _ ranUse) bool { return !c.returned[id] })
	}
}

func (c *toolResultReturned) finish(int64) {
	for _, id := range slices.Sorted(maps.Keys(c.ran)) {
		r := c.ran[id]
		if !c.returned[id] && c.maxTurn > r.turn {
			c.res.Resolve(hosts.Fail, fmt.Sprintf("tool use %q ran (turn %d) but its result was never sent back: the agent went on to turn %d without it",
				id, r.turn, c.maxTurn), r.m, c.lastReq)
			return
		}
	}
	c.res.Resolve(hosts.Pass, fmt.Sprintf("every tool use run was sent back before a later turn (%d runs)", len(c.ran)))
}

// clone as every checker's: its result and its own maps.
func (c *toolResultReturned) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.ran = maps.Clone(c.ran)
	d.returned = maps.Clone(c.returned)
	return &d
}

// turnNotRepeated is turn_not_repeated { peer }: once a turn is
// committed — the agent asked for a later one, recorded its model call
// ok, or ended it ok — no request asks for it again. An agent that
// restarts from its first turn after a kill repeats what it did.
type turnNotRepeated struct {
	base
	peer      string
	committed map[int64]mark // turn → what committed it
	why       map[int64]string
	maxTurn   int64
}

func newTurnNotRepeated(p TurnNotRepeated) checker {
	return &turnNotRepeated{peer: p.Peer, committed: map[int64]mark{}, why: map[int64]string{}}
}

func (c *turnNotRepeated) wants() want { return 0 }

func (c *turnNotRepeated) commit(t int64, m mark, why string) {
	if _, ok := c.committed[t]; !ok && t > 0 {
		c.committed[t], c.why[t] = m, why
	}
}

func (c *turnNotRepeated) onRecord(rec *hosts.EventRec) {
	claim := rec.KindTag == agentTag && rec.HostID == c.peer && (rec.Type == "turn_end" || rec.Type == "effect_outcome")
	if !isRequest(rec) && !claim {
		return
	}
	p, ok := decode(rec)
	if !ok {
		return
	}
	m := at(rec)
	switch {
	case rec.Type == "turn_end":
		if p.Outcome == "ok" {
			c.commit(p.Turn, m, "the agent ended it ok")
		}
	case rec.Type == "effect_outcome":
		if p.Effect == "model_call" && p.Outcome == "ok" {
			c.commit(callTurn(p.ID), m, fmt.Sprintf("its model call %s was recorded ok", p.ID))
		}
	case p.From == c.peer:
		t := callTurn(p.Call)
		if first, done := c.committed[t]; done {
			c.res.Resolve(hosts.Fail, fmt.Sprintf("request %s asks for turn %d again, committed at %s (%s)", p.Call, t, hosts.Seconds(first.TimeNs), c.why[t]), first, m)
			return
		}
		for u := c.maxTurn; u < t; u++ { // asking for turn t commits every turn before it
			c.commit(u, m, fmt.Sprintf("the agent had asked for turn %d", t))
		}
		c.maxTurn = max(c.maxTurn, t)
	}
}

func (c *turnNotRepeated) finish(int64) {
	c.res.Resolve(hosts.Pass, fmt.Sprintf("no committed turn was asked for again (%d turns asked for)", c.maxTurn))
}

// clone as every checker's, alike in shape: its result and its own maps.
func (c *turnNotRepeated) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.committed = maps.Clone(c.committed)
	d.why = maps.Clone(c.why)
	return &d
}

// toolDeadlineKept is tool_deadline_kept { peer, within_ns }: no tool
// run the agent started outlives the agent's tool deadline (within_ns,
// the agent's tool_timeout_ns) through the agent's neglect: a run still
// going when the run ends, or one the edge had to end at the episode's
// end (tool_state cancelled by episode_end), that started more than
// within_ns before, is the agent's failure — it left a hung tool
// running, and the edge's cleanup must not hide it. A run that ends
// itself, or that the agent cancels (by tool_cancel, disconnect or
// cancel_mutation), is the agent keeping its deadline. A run its life
// was killed in is not held against it.
type toolDeadlineKept struct {
	base
	peer     string
	withinNs int64
	open     map[string]mark // run id → its start
}

func newToolDeadlineKept(p ToolDeadlineKept) checker {
	return &toolDeadlineKept{peer: p.Peer, withinNs: p.WithinNs, open: map[string]mark{}}
}

func (c *toolDeadlineKept) wants() want { return wantMutations }

func (c *toolDeadlineKept) onRecord(rec *hosts.EventRec) {
	if !isToolState(rec) {
		return
	}
	p, ok := decode(rec)
	if !ok {
		return
	}
	switch p.State {
	case "started":
		c.open[p.Call] = at(rec)
	case "committed", "failed", "cancelled":
		start, ok := c.open[p.Call]
		delete(c.open, p.Call)
		if ok && p.By == "episode_end" && rec.TimeNs-start.TimeNs > c.withinNs {
			c.res.Resolve(hosts.Fail, fmt.Sprintf("tool use %q ran %s, past the agent's tool deadline of %s, until the episode's end cancelled it: the agent left it running",
				useOf(p.Call), hosts.Seconds(rec.TimeNs-start.TimeNs), hosts.Seconds(c.withinNs)), start, at(rec))
		}
	}
}

func (c *toolDeadlineKept) onMutation(f mutationFact) {
	if f.peer == c.peer && f.kind == "PeerKill" {
		clear(c.open)
	}
}

func (c *toolDeadlineKept) finish(endNs int64) {
	for _, id := range slices.Sorted(maps.Keys(c.open)) {
		if start := c.open[id]; endNs-start.TimeNs > c.withinNs {
			c.res.Resolve(hosts.Fail, fmt.Sprintf("tool use %q was still running at the end, %s after it started, past the agent's tool deadline of %s",
				useOf(id), hosts.Seconds(endNs-start.TimeNs), hosts.Seconds(c.withinNs)), start)
			return
		}
	}
	c.res.Resolve(hosts.Pass, "no tool run outlived the agent's tool deadline of "+hosts.Seconds(c.withinNs))
}

// clone as every checker's, alike in shape: its result and its own maps.
func (c *toolDeadlineKept) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.open = maps.Clone(c.open)
	return &d
}

// noWorkAfterCancel is no_work_after_cancel { peer, within_ns }: once a
// Cancel of the agent fires, the agent starts nothing — no model
// request, no tool run — once it has been told (the edge's control
// endpoint's next poll showed it read the Cancel: control_read) or within_ns after
// the Cancel, whichever comes first. A Cancel while the agent is killed
// does not reach it, and a kill ends what a Cancel asked for.
type noWorkAfterCancel struct {
	base
	peer      string
	withinNs  int64
	cancelAt  *mark
	told      *mark
	killed    bool
	cancelled int
}

func newNoWorkAfterCancel(p NoWorkAfterCancel) checker {
	return &noWorkAfterCancel{peer: p.Peer, withinNs: p.WithinNs}
}

func (c *noWorkAfterCancel) wants() want { return wantMutations }

func (c *noWorkAfterCancel) onMutation(f mutationFact) {
	if f.peer != c.peer {
		return
	}
	switch f.kind {
	case "PeerKill":
		c.killed, c.cancelAt, c.told = true, nil, nil
	case "PeerResurrect":
		c.killed = false
	case "Cancel":
		if !c.killed && c.cancelAt == nil {
			m := f.at
			c.cancelAt = &m
			c.cancelled++
		}
	}
}

func (c *noWorkAfterCancel) onRecord(rec *hosts.EventRec) {
	if c.cancelAt == nil {
		return
	}
	if rec.KindTag == "edge" && rec.Type == "control_read" {
		if p, ok := decode(rec); ok && c.told == nil && slices.Contains(strings.Split(p.Actions, ","), "cancel") {
			m := at(rec)
			c.told = &m
		}
		return
	}
	if !isRequest(rec) && !isToolState(rec) {
		return
	}
	p, ok := decode(rec)
	if !ok || isRequest(rec) && p.From != c.peer || isToolState(rec) && p.State != "started" {
		return
	}
	what := "model request " + p.Call
	if isToolState(rec) {
		what = "tool use " + strconv.Quote(useOf(p.Call))
	}
	switch {
	case c.told != nil:
		c.res.Resolve(hosts.Fail, fmt.Sprintf("%s started at %s, after the Cancel at %s was delivered to the agent at %s",
			what, hosts.Seconds(rec.TimeNs), hosts.Seconds(c.cancelAt.TimeNs), hosts.Seconds(c.told.TimeNs)), *c.cancelAt, *c.told, at(rec))
	case rec.TimeNs-c.cancelAt.TimeNs > c.withinNs:
		c.res.Resolve(hosts.Fail, fmt.Sprintf("%s started at %s, %s after the Cancel at %s (more than %s)",
			what, hosts.Seconds(rec.TimeNs), hosts.Seconds(rec.TimeNs-c.cancelAt.TimeNs), hosts.Seconds(c.cancelAt.TimeNs), hosts.Seconds(c.withinNs)), *c.cancelAt, at(rec))
	}
}

func (c *noWorkAfterCancel) finish(int64) {
	c.res.Resolve(hosts.Pass, fmt.Sprintf("nothing started after a Cancel (%d Cancels reached the agent)", c.cancelled))
}

func (c *noWorkAfterCancel) clone() checker {
	d := *c
	d.res = c.res.Clone()
	if c.cancelAt != nil {
		m := *c.cancelAt
		d.cancelAt = &m
	}
	if c.told != nil {
		m := *c.told
		d.told = &m
	}
	return &d
}
