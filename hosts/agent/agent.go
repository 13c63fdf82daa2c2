// Package agent is the `agent` host kind (seed 000): an agent loop that
// runs a workflow of turns. Each turn is a model call to a provider peer
// (hosts/provider); the tool uses of its response go to tool peers
// (hosts/tool) and their results, capped, feed the next turn's request.
//
// Every wait has a deadline: the first byte, the idle gap between two
// frames, the whole call, each tool. A failed attempt is retried with
// seeded exponential backoff and jitter (the host's rng substream),
// honouring retry-after, and only while none of its content has been
// delivered. A Cancel mutation (hosts.Cancel) cancels the turn at
// whatever chunk boundary it falls on: the call is aborted, the tools
// are told to cancel, and each tool use not answered within
// cancel_grace_ns gets a synthesised cancelled result. Every effect (a
// model-call attempt, a tool call) ends in exactly one explicit outcome:
// ok, failed, timed_out or cancelled.
//
// The session store (store.go) is append-only and durable across lives
// (hosts.Durable): after PeerKill then PeerResurrect with preserve_state
// = false the fresh life recovers from it, settles the effects its
// previous life left open, and resumes at the first uncommitted turn.
//
// Events: docs/agents.md. Planted bugs for the oracles' tests: config.go.
package agent

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/llmwire"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of agent hosts and their events.
const Tag = "agent"

// Kind is the agent host kind for the registry.
var Kind = &hosts.Kind{
	Tag:          Tag,
	States:       []string{"up", "down"},
	DownState:    "down",
	RestartState: "up",
	Validate: func(config map[string]any, peers []string) []hosts.FieldError {
		_, errs := parse(config, peers)
		return errs
	},
	New:         newHost,
	Codec:       llmwire.Codec{},
	Cancellable: true,
	Faults:      Catalog,
	Summary:     Summary,
	Series:      series,
}

// series are what the page charts of an agent run: how long its calls
// take, how often it retries, and what it sends and gets back.
var series = []hosts.Series{
	{ID: "agent_latency", Title: "call latency", Unit: "ns", Types: []string{"effect_outcome"}, Span: &hosts.Span{Start: "effect_started", Key: "id"}, Agg: hosts.AggMaxMedian,
		Doc: "longest and median time from a model or tool call's start to its outcome"},
	{ID: "agent_retries", Title: "retries", Types: []string{"retry_scheduled"}, Agg: hosts.AggCount,
		Doc: "retries the agent scheduled after a failed call"},
	{ID: "agent_request_bytes", Title: "request size", Unit: "B", Types: []string{"request_sent"}, Field: "bytes", Agg: hosts.AggMaxMedian,
		Doc: "largest and median model request the agent sent"},
	{ID: "agent_outcome_bytes", Title: "response bytes", Unit: "B", Types: []string{"effect_outcome"}, Field: "bytes", Agg: hosts.AggMaxMedian,
		Doc: "largest and median response a call delivered"},
}

type phase uint8

const (
	phaseIdle phase = iota // before the first tick
	phaseCalling
	phaseBackoff
	phaseTools
	phaseDone
)

var phaseNames = [...]string{"idle", "calling", "backoff", "tools", "done"}

type host struct {
	id  string
	cfg *config
	r   *rng.Stream

	phase    phase
	turn     int64 // 0-based current turn
	attempts int64 // model-call attempts of the current turn
	call     *attempt
	backTok  uint64
	tools    []pending
	feed     []fed
	outcome  string // the episode's outcome once done

	cancelling bool
	cancelTok  uint64

	st        store
	recovered bool // Recover loaded a previous life's store
	writes    int64
	nextSeq   int64
	nextTok   uint64
	retries   int64
	acts      []hosts.Action
}

// pending is a tool use of the current turn awaiting its result.
type pending struct {
	id, useID, name, peer string
	tok                   uint64
}

// fed is a tool result to include in the next request.
type fed struct {
	id    string
	bytes int64
	body  []byte
}

func newHost(id string, config map[string]any, _ string, peers []string, r *rng.Stream) hosts.Host {
	cfg, _ := parse(config, peers)
	return &host{id: id, cfg: cfg, r: r}
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

// Durable is the serialised session store: hosts.Durable.
func (h *host) Durable() []byte { return h.st.marshal() }

// Recover loads a previous life's store: hosts.Durable.
func (h *host) Recover(b []byte) {
	h.st = unmarshal(b)
	h.recovered = true
	if n := len(h.st.recs); n > 0 {
		h.nextSeq = h.st.recs[n-1].seq
	}
}

// Tick starts (or resumes) the episode on the first tick, then halts
// ticks: everything after is driven by messages and timers.
func (h *host) Tick(now int64) []hosts.Action {
	h.acts = h.acts[:0]
	if h.phase == phaseIdle {
		if h.recovered {
			h.recover(now)
		} else {
			h.ev("episode_start", llmwire.I("turns", h.cfg.turns), llmwire.S("provider", h.cfg.provider))
			h.startTurn(now)
		}
	}
	return append(h.acts, hosts.HaltAction())
}

func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.acts = h.acts[:0]
	switch m := m.(type) {
	case *hosts.Delivery:
		switch x := m.Payload.(type) {
		case *llmwire.Frame:
			h.frame(x, now)
		case *llmwire.ToolResult:
			h.toolResult(x, now)
		}
	case *hosts.TimerFired:
		h.timer(m.Token, now)
	case *hosts.Cancel:
		h.cancel(now)
	}
	return h.acts
}

func (h *host) ev(typ string, f ...llmwire.Field) {
	h.acts = append(h.acts, hosts.Record(llmwire.Ev(typ, f...)))
}

func (h *host) timerAt(at int64) uint64 {
	h.nextTok++
	h.acts = append(h.acts, hosts.Timer(at, h.nextTok))
	return h.nextTok
}

// commit writes rec durably and acknowledges it; false if the store
// stayed unavailable through every retry.
func (h *host) commit(rec record) bool {
	h.nextSeq++
	rec.seq = h.nextSeq
	seq := llmwire.I("seq", rec.seq)
	if h.cfg.bug == BugAckBeforeWrite {
		h.ev("store_ack", seq)
		h.write(rec)
		return true
	}
	for try := int64(0); try <= h.cfg.storeWriteRetries; try++ {
		if h.write(rec) {
			h.ev("store_ack", seq)
			return true
		}
	}
	return false
}

// write is one write attempt: the store's fault schedule decides it.
func (h *host) write(rec record) bool {
	h.writes++
	ok := !containsSorted(h.cfg.storeFailWrites, h.writes)
	h.ev("store_write", llmwire.I("seq", rec.seq), llmwire.S("record", rec.kind), llmwire.S("id", rec.id), llmwire.B("ok", ok))
	if ok {
		h.st.recs = append(h.st.recs, rec)
	}
	return ok
}

func containsSorted(xs []int64, x int64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
		if v > x {
			return false
		}
	}
	return false
}

// storeDown ends the episode: the store refused a write through every
// retry, and nothing more may be acknowledged.
func (h *host) storeDown() {
	h.phase = phaseDone
	h.outcome = "failed"
	h.ev("episode_end", llmwire.S("outcome", "failed"), llmwire.S("reason", "store_unavailable"), llmwire.I("turns_done", h.turn))
}

func (h *host) startTurn(now int64) {
	if h.turn >= h.cfg.turns {
		h.phase = phaseDone
		h.outcome = "ok"
		if h.commit(record{kind: "end", id: "-", turn: h.turn, value: "ok"}) {
			h.ev("episode_end", llmwire.S("outcome", "ok"), llmwire.S("reason", "workflow_done"), llmwire.I("turns_done", h.turn))
		} else {
			h.storeDown()
		}
		return
	}
	h.attempts = 0
	h.startAttempt(now)
}

func (h *host) step() string {
	if h.turn < int64(len(h.cfg.steps)) {
		return h.cfg.steps[h.turn]
	}
	return ""
}

func (h *host) startAttempt(now int64) {
	h.attempts++
	id := "t" + strconv.FormatInt(h.turn+1, 10) + ".a" + strconv.FormatInt(h.attempts, 10)
	if !h.commit(record{kind: "started", turn: h.turn, id: id, value: "model_call"}) {
		h.storeDown()
		return
	}
	h.ev("effect_started", llmwire.S("effect", "model_call"), llmwire.S("id", id), llmwire.I("turn", h.turn+1),
		llmwire.I("attempt", h.attempts), llmwire.S("peer", h.cfg.provider))
	body := h.body()
	for _, f := range h.feed {
		h.ev("tool_result_included", llmwire.S("id", f.id), llmwire.I("bytes", f.bytes), llmwire.S("call", id))
	}
	h.feed = h.feed[:0]
	h.ev("request_sent", llmwire.S("id", id), llmwire.S("step", h.step()), llmwire.I("bytes", int64(len(body))))
	h.acts = append(h.acts, hosts.Send(h.cfg.provider, &llmwire.Request{Call: id, Step: h.step(), Body: body}))
	a := &attempt{id: id}
	a.firstTok = h.timerAt(now + h.cfg.firstByteTimeout)
	a.callTok = h.timerAt(now + h.cfg.callTimeout)
	h.call = a
	h.phase = phaseCalling
}

// body is the request's JSON: the conversation so far, reduced to the
// prompt and the tool results this turn feeds.
func (h *host) body() []byte {
	b := []byte(`{"model":"claude-sim-1","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":`)
	prompt := make([]byte, h.cfg.promptBytes)
	for i := range prompt {
		prompt[i] = 'p'
	}
	b = jsonw.AppendString(b, "turn "+strconv.FormatInt(h.turn+1, 10)+": "+string(prompt))
	b = append(b, '}')
	if len(h.feed) > 0 {
		b = append(b, `,{"role":"user","content":[`...)
		for i, f := range h.feed {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"tool_result","tool_use_id":`...)
			b = jsonw.AppendString(b, f.id)
			b = append(b, `,"content":`...)
			b = jsonw.AppendString(b, string(f.body))
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

func (h *host) frame(f *llmwire.Frame, now int64) {
	a := h.call
	if h.phase != phaseCalling || a == nil || f.Call != a.id {
		return // a stale stream: an aborted or earlier attempt
	}
	// Frames are reassembled in order, as TCP would: jitter can land a
	// later frame first. A lost frame leaves a gap nothing fills (the
	// model has no retransmission), which the idle deadline ends.
	switch {
	case f.Seq < a.seq:
		return // a duplicate
	case f.Seq > a.seq:
		if len(a.ooo) >= maxOutOfOrder {
			h.endCall(verdict{done: true, outcome: "failed", reason: "connection_reset", retryable: true}, now, true)
			return
		}
		a.ooo = append(a.ooo, llmwire.Frame{Call: f.Call, Seq: f.Seq, EOF: f.EOF, Data: bytes.Clone(f.Data)})
		return
	}
	if h.segment(f, now) {
		return
	}
	for {
		i := slices.IndexFunc(a.ooo, func(o llmwire.Frame) bool { return o.Seq == a.seq })
		if i < 0 {
			break
		}
		next := a.ooo[i]
		a.ooo = slices.Delete(a.ooo, i, i+1)
		if h.segment(&next, now) {
			return
		}
	}
	if h.call == a {
		a.idleTok = h.timerAt(now + h.cfg.idleTimeout)
	}
}

// maxOutOfOrder bounds the frames held waiting for an earlier one.
const maxOutOfOrder = 4096

// segment parses the in-order frame f; true if it ended the call.
func (h *host) segment(f *llmwire.Frame, now int64) bool {
	a := h.call
	a.seq++
	a.frames++
	a.gotFirst = true
	v := a.feed(f.Data, h.cfg.maxResponseBytes)
	if !v.done && f.EOF {
		v = a.eof(h.cfg.bug == BugAcceptTruncated)
		if !v.done {
			v = failed("truncated", true)
		}
	}
	if v.done {
		h.endCall(v, now, !f.EOF)
		return true
	}
	if f.EOF {
		// The stream ended cleanly after message_stop was handled.
		return true
	}
	return false
}

// endCall settles the current attempt with v's outcome; abort closes the
// connection when the provider may still be sending.
func (h *host) endCall(v verdict, now int64, abort bool) {
	a := h.call
	h.call = nil
	if abort {
		h.acts = append(h.acts, hosts.Send(h.cfg.provider, &llmwire.Abort{Call: a.id}))
	}
	silent := h.cfg.bug == BugDropTimeoutOutcome && v.outcome == "timed_out"
	if !silent {
		h.ev("effect_outcome", llmwire.S("effect", "model_call"), llmwire.S("id", a.id), llmwire.S("outcome", v.outcome),
			llmwire.S("reason", v.reason), llmwire.B("content_delivered", a.content), llmwire.I("frames", a.frames),
			llmwire.I("bytes", a.bytes), llmwire.I("retry_after_ns", a.retryAfter))
		if !h.commit(record{kind: "outcome", turn: h.turn, id: a.id, value: v.outcome}) {
			h.storeDown()
			return
		}
	}
	switch {
	case v.outcome == "ok":
		h.startTools(a, now)
	case v.outcome == "cancelled":
		// cancel() settles.
	case v.retryable && (!a.content || h.cfg.bug == BugRetryAfterContent) && h.attempts < h.cfg.maxAttempts:
		h.backoff(a, now)
	default:
		h.endTurn("failed", now)
	}
}

// backoff schedules the next attempt: base·2^(n-1) capped at max, plus a
// jitter in [0, d/2] from the host's substream, and at least retry-after.
func (h *host) backoff(a *attempt, now int64) {
	d := h.cfg.backoffBase
	for i := int64(1); i < h.attempts && d < h.cfg.backoffMax; i++ {
		d *= 2
	}
	d = min(d, h.cfg.backoffMax)
	d += int64(h.r.Below(uint64(d/2) + 1))
	if a.retryAfter > d && h.cfg.bug != BugIgnoreRetryAfter {
		d = a.retryAfter
	}
	h.retries++
	h.ev("retry_scheduled", llmwire.S("after", a.id), llmwire.I("attempt", h.attempts+1), llmwire.I("delay_ns", d),
		llmwire.I("retry_after_ns", a.retryAfter))
	h.backTok = h.timerAt(now + d)
	h.phase = phaseBackoff
}

func (h *host) startTools(a *attempt, now int64) {
	h.tools = h.tools[:0]
	for _, b := range a.blocks {
		if b.typ != "tool_use" {
			continue
		}
		id := "t" + strconv.FormatInt(h.turn+1, 10) + "." + b.id
		peer, known := h.cfg.toolPeer(b.name)
		h.ev("tool_use", llmwire.S("id", id), llmwire.S("name", b.name), llmwire.S("peer", peer))
		if !known {
			h.toolDone(id, "failed", "unknown_tool", false, []byte("unknown tool "+b.name))
			continue
		}
		if !h.commit(record{kind: "started", turn: h.turn, id: id, value: "tool_call"}) {
			h.ev("tool_result", llmwire.S("id", id), llmwire.S("outcome", "failed"), llmwire.B("synthesised", true))
			h.storeDown()
			return
		}
		h.ev("effect_started", llmwire.S("effect", "tool_call"), llmwire.S("id", id), llmwire.I("turn", h.turn+1),
			llmwire.I("attempt", 1), llmwire.S("peer", peer))
		h.acts = append(h.acts, hosts.Send(peer, &llmwire.ToolCall{Call: id, Name: b.name, Args: b.args}))
		h.tools = append(h.tools, pending{id: id, useID: b.id, name: b.name, peer: peer, tok: h.timerAt(now + h.cfg.toolTimeout)})
	}
	h.phase = phaseTools
	h.maybeEndTools(now)
}

func (h *host) toolResult(r *llmwire.ToolResult, now int64) {
	i := h.pendingIndex(r.Call)
	if i < 0 {
		return // late: already timed out, cancelled or from an earlier life
	}
	p := h.tools[i]
	h.tools = append(h.tools[:i], h.tools[i+1:]...)
	outcome, reason := "ok", "exit_0"
	switch r.Status {
	case llmwire.ToolFailed:
		outcome, reason = "failed", "exit_"+strconv.FormatUint(r.Exit, 10)
	case llmwire.ToolCancelled:
		outcome, reason = "cancelled", "tool_cancelled"
	}
	if h.toolEffectOutcome(p.id, outcome, reason, int64(len(r.Output))) {
		h.toolDone(p.id, outcome, reason, false, r.Output)
		h.maybeEndTools(now)
	}
}

func (h *host) pendingIndex(id string) int {
	for i, p := range h.tools {
		if p.id == id {
			return i
		}
	}
	return -1
}

// toolEffectOutcome records and commits a tool effect's outcome.
func (h *host) toolEffectOutcome(id, outcome, reason string, bytes int64) bool {
	h.ev("effect_outcome", llmwire.S("effect", "tool_call"), llmwire.S("id", id), llmwire.S("outcome", outcome),
		llmwire.S("reason", reason), llmwire.B("content_delivered", false), llmwire.I("frames", 0),
		llmwire.I("bytes", bytes), llmwire.I("retry_after_ns", 0))
	if !h.commit(record{kind: "outcome", turn: h.turn, id: id, value: outcome}) {
		h.storeDown()
		return false
	}
	return true
}

// toolDone records the tool use's result and queues it, sanitised and
// capped, for the next request.
func (h *host) toolDone(id, outcome, reason string, synthesised bool, out []byte) {
	binary := !utf8.Valid(out)
	for _, c := range out {
		if c == 0 {
			binary = true
			break
		}
	}
	body := out
	if binary {
		body = []byte("[binary output: " + strconv.Itoa(len(out)) + " bytes omitted]")
	}
	if int64(len(body)) > h.cfg.maxToolOutput && h.cfg.bug != BugNoOutputCap {
		body = append(body[:h.cfg.maxToolOutput:h.cfg.maxToolOutput], "\n[output truncated]"...)
	}
	if outcome != "ok" {
		body = append([]byte("[tool "+outcome+": "+reason+"] "), body...)
	}
	h.ev("tool_result", llmwire.S("id", id), llmwire.S("outcome", outcome), llmwire.B("synthesised", synthesised),
		llmwire.I("raw_bytes", int64(len(out))), llmwire.B("binary", binary))
	h.feed = append(h.feed, fed{id: id, bytes: int64(len(body)), body: body})
}

func (h *host) maybeEndTools(now int64) {
	if h.phase != phaseTools || len(h.tools) > 0 {
		return
	}
	if h.cancelling {
		h.settle(now)
		return
	}
	h.endTurn("ok", now)
}

func (h *host) endTurn(outcome string, now int64) {
	if !h.commit(record{kind: "turn", turn: h.turn, id: "-", value: outcome}) {
		h.storeDown()
		return
	}
	h.ev("turn_end", llmwire.I("turn", h.turn+1), llmwire.S("outcome", outcome), llmwire.I("attempts", h.attempts))
	h.turn++
	h.startTurn(now)
}

func (h *host) timer(tok uint64, now int64) {
	switch {
	case h.phase == phaseCalling && h.call != nil && tok == h.call.firstTok && !h.call.gotFirst:
		h.endCall(verdict{done: true, outcome: "timed_out", reason: "first_byte", retryable: true}, now, true)
	case h.phase == phaseCalling && h.call != nil && tok == h.call.idleTok:
		h.endCall(verdict{done: true, outcome: "timed_out", reason: "idle", retryable: true}, now, true)
	case h.phase == phaseCalling && h.call != nil && tok == h.call.callTok:
		h.endCall(verdict{done: true, outcome: "timed_out", reason: "call", retryable: true}, now, true)
	case h.phase == phaseBackoff && tok == h.backTok:
		h.startAttempt(now)
	case h.phase == phaseTools && h.cancelling && tok == h.cancelTok:
		for len(h.tools) > 0 {
			p := h.tools[0]
			h.tools = h.tools[1:]
			if !h.toolEffectOutcome(p.id, "cancelled", "cancel_grace_elapsed", 0) {
				return
			}
			h.toolDone(p.id, "cancelled", "cancel_grace_elapsed", true, nil)
		}
		h.maybeEndTools(now)
	case h.phase == phaseTools:
		i := -1
		for j, p := range h.tools {
			if p.tok == tok {
				i = j
			}
		}
		if i < 0 {
			return
		}
		p := h.tools[i]
		h.tools = append(h.tools[:i], h.tools[i+1:]...)
		h.acts = append(h.acts, hosts.Send(p.peer, &llmwire.ToolCancel{Call: p.id}))
		if h.toolEffectOutcome(p.id, "timed_out", "tool_timeout", 0) {
			h.toolDone(p.id, "timed_out", "tool_timeout", false, nil)
			h.maybeEndTools(now)
		}
	}
}

// cancel handles a Cancel mutation at whatever boundary it falls on.
func (h *host) cancel(now int64) {
	h.ev("cancel_requested", llmwire.S("phase", phaseNames[h.phase]), llmwire.I("turn", h.turn+1))
	switch h.phase {
	case phaseDone:
		h.ev("cancel_settled", llmwire.I("turn", h.turn+1), llmwire.S("episode", h.outcome))
		return
	case phaseIdle:
		// A fresh life cancelled before its first tick settles what its
		// last life left open first: every effect still ends in one
		// outcome.
		h.cancelling = true
		if h.recovered {
			ended, ok := h.settleOpen()
			if !ok {
				return
			}
			if ended != "" {
				h.phase, h.outcome = phaseDone, ended
				h.ev("cancel_settled", llmwire.I("turn", h.turn+1), llmwire.S("episode", ended))
				return
			}
		}
		h.settle(now)
		return
	}
	if h.cancelling {
		return // already settling
	}
	h.cancelling = true
	switch h.phase {
	case phaseCalling:
		h.endCall(verdict{done: true, outcome: "cancelled", reason: "cancel"}, now, true)
		if h.phase == phaseCalling { // endCall did not end the episode
			h.settle(now)
		}
	case phaseBackoff:
		h.settle(now)
	case phaseTools:
		switch h.cfg.bug {
		case BugDropCancelledResults:
			h.tools = h.tools[:0]
			h.settle(now)
		case BugSlowCancel:
			// Waits for each tool to end or time out on its own.
		default:
			for _, p := range h.tools {
				h.acts = append(h.acts, hosts.Send(p.peer, &llmwire.ToolCancel{Call: p.id}))
			}
			h.cancelTok = h.timerAt(now + h.cfg.cancelGrace)
		}
	}
}

// settle ends a cancelled episode once nothing is pending.
func (h *host) settle(now int64) {
	h.ev("cancel_settled", llmwire.I("turn", h.turn+1), llmwire.S("episode", "cancelled"))
	h.phase = phaseDone
	h.outcome = "cancelled"
	if h.commit(record{kind: "end", id: "-", turn: h.turn, value: "cancelled"}) {
		h.ev("episode_end", llmwire.S("outcome", "cancelled"), llmwire.S("reason", "cancel"), llmwire.I("turns_done", h.turn))
	} else {
		h.storeDown()
	}
}

// recover resumes from the store a previous life left: it settles the
// effects that life left open, then resumes the first turn with no
// committed turn record. A turn whose model call already ended ok is
// past its call: its tools are what was left (now settled), so it ends
// without calling the model again — another call would retry an attempt
// that delivered content, and repeat its tool use ids.
func (h *host) recover(now int64) {
	ended, ok := h.settleOpen()
	if !ok {
		return
	}
	if ended != "" {
		h.phase, h.outcome = phaseDone, ended
		return
	}
	// Attempts already made for the resumed turn count against its budget.
	answered := false
	calls := map[string]bool{}
	for _, r := range h.st.recs {
		if r.turn != h.turn {
			continue
		}
		switch {
		case r.kind == "started" && r.value == "model_call":
			h.attempts++
			calls[r.id] = true
		case r.kind == "outcome" && r.value == "ok" && calls[r.id]:
			answered = true
		}
	}
	h.ev("episode_resumed", llmwire.I("turn", h.turn+1), llmwire.I("attempts", h.attempts))
	switch {
	case h.turn >= h.cfg.turns:
		h.startTurn(now)
	case answered:
		h.phase = phaseTools
		h.maybeEndTools(now)
	case h.attempts >= h.cfg.maxAttempts:
		h.endTurn("failed", now)
	default:
		h.startAttempt(now)
	}
}

// settleOpen reads the store a previous life left: it sets the turn to
// the first with no committed turn record and settles as failed
// (interrupted_by_restart) every effect that life started and never
// ended, a tool use's synthesised result queued for the next request.
// It returns the episode's recorded end ("" if none), and false if the
// store went down meanwhile.
func (h *host) settleOpen() (string, bool) {
	h.recovered = false
	seqs := make([]string, len(h.st.recs))
	for i, r := range h.st.recs {
		seqs[i] = strconv.FormatInt(r.seq, 10)
	}
	h.ev("store_recovered", llmwire.I("records", int64(len(h.st.recs))), llmwire.L("seqs", seqs))
	var open []record
	next := int64(0)
	ended := ""
	for _, r := range h.st.recs {
		switch r.kind {
		case "started":
			open = append(open, r)
		case "outcome":
			for i, o := range open {
				if o.id == r.id {
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
		case "turn":
			next = max(next, r.turn+1)
		case "end":
			ended = r.value
		}
	}
	h.turn = next
	for _, o := range open {
		h.ev("effect_outcome", llmwire.S("effect", o.value), llmwire.S("id", o.id), llmwire.S("outcome", "failed"),
			llmwire.S("reason", "interrupted_by_restart"), llmwire.B("content_delivered", false), llmwire.I("frames", 0),
			llmwire.I("bytes", 0), llmwire.I("retry_after_ns", 0))
		if o.value == "tool_call" {
			h.toolDone(o.id, "failed", "interrupted_by_restart", true, nil)
		}
		if !h.commit(record{kind: "outcome", turn: o.turn, id: o.id, value: "failed"}) {
			h.storeDown()
			return "", false
		}
	}
	return ended, true
}
