// Package agent is the `agent` host kind (seed 000): an agent loop that
// runs a workflow of turns. Each turn is a model call to a provider peer
// (kinds/agent/provider); the tool uses of its response go to tool peers
// (kinds/agent/tool) and their results, capped, feed the next turn's request.
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
// A tool is never settled behind its back: whatever stops waiting for
// it — its deadline, a Cancel, a restart that finds it open, the store
// failing — tells it (ToolCancel) and takes its answer within
// cancel_grace_ns as the outcome, so the agent never records a tool as
// cancelled or timed out that goes on to commit (no_commit_after_settle).
//
// The session store (store.go) is append-only and durable across lives
// (hosts.Durable): after PeerKill then PeerResurrect with preserve_state
// = false the fresh life recovers from it, settles the effects its
// previous life left open, and resumes at the first uncommitted turn. A
// record the store refuses through every retry stops the workflow: the
// agent still settles and reports every effect (the outcome it could
// not write included), tells its tools, and ends the episode failed
// (store_unavailable), writing what it still can.
//
// Events: docs/agents.md. Planted bugs for the oracles' tests: config.go.
package agent

import (
	"bytes"
	"io/fs"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/agent/agentcheck"
	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of agent hosts and their events.
const Tag = "agent"

// Kind is the agent host kind for the registry.
var Kind hosts.Kind = kind{}

// kind is the agent kind: the runtime, a "down" state
// (hosts.Restartable), cancellable hosts (hosts.Canceller), a fault
// catalog (hosts.Faulter), a summary line (pane.Summarizer), charts
// (hosts.Charts), its assertions (hosts.Oracle, agentcheck) and the
// family's scenario library (hosts.Librarian, library.go). The up/down
// states and the codec are llmwire.Family's, the same for the whole
// family; its other one-line methods read as the other agent-family
// kinds' do, on purpose: each answers one of the contract's small
// interfaces.
type kind struct{ llmwire.Family }

func (kind) Tag() string                    { return Tag }
func (kind) Cancellable() bool              { return true }
func (kind) Faults() *hosts.FaultCatalog    { return Catalog }
func (kind) Summary(snapshot []byte) string { return Summary(snapshot) }
func (kind) Series() []hosts.Series         { return series }
func (kind) Assertions() *hosts.Assertions  { return agentcheck.Family }
func (kind) Library() fs.FS                 { return library }

func (kind) Validate(config map[string]any, peers []string) []hosts.FieldError {
	_, errs := parse(config, peers)
	return errs
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
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

// Why the agent stops (host.stopping) and why it stops waiting for a
// tool (pending.stop).
const (
	stopCancel  = "cancel"            // a Cancel mutation
	stopStore   = "store_unavailable" // a record refused through every retry
	stopTimeout = "timeout"           // the tool's own deadline
	stopRestart = "restart"           // a fresh life found the run open
)

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

	// stopping is why the episode is being wound down ("" while it
	// runs): stopCancel or stopStore. Once set, a failed write no longer
	// stops anything: what is settled is reported whether or not the
	// store takes it.
	stopping string
	resuming bool // a fresh life waits for its previous life's tools before it resumes

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
	tok                   uint64 // its deadline, or once told to stop, the end of its grace
	stop                  string // "" while it runs; else why it was told to cancel
}

// fed is a tool result to include in the next request.
type fed struct {
	id    string
	bytes int64 // what the agent says it included
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

// refused commits rec and reports whether its refusal must stop the
// workflow: the store refused it through every retry and nothing is
// stopping yet. While the agent winds down, a refused write is only
// what it is: the settled effect is reported all the same.
func (h *host) refused(rec record) bool {
	return !h.commit(rec) && h.stopping == ""
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

func (h *host) startTurn(now int64) {
	if h.turn >= h.cfg.turns {
		if h.refused(record{kind: "end", id: "-", turn: h.turn, value: "ok"}) {
			h.stop(stopStore, now)
			return
		}
		h.phase = phaseDone
		h.outcome = "ok"
		h.ev("episode_end", llmwire.S("outcome", "ok"), llmwire.S("reason", "workflow_done"), llmwire.I("turns_done", h.turn))
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
	a := &attempt{id: id, silent: h.cfg.bug == BugUnrecordedRetry && h.attempts > 1}
	if !a.silent {
		if h.refused(record{kind: "started", turn: h.turn, id: id, value: "model_call"}) {
			h.stop(stopStore, now)
			return
		}
		h.ev("effect_started", llmwire.S("effect", "model_call"), llmwire.S("id", id), llmwire.I("turn", h.turn+1),
			llmwire.I("attempt", h.attempts), llmwire.S("peer", h.cfg.provider))
	}
	body := h.body()
	for _, f := range h.feed {
		h.ev("tool_result_included", llmwire.S("id", f.id), llmwire.I("bytes", f.bytes), llmwire.S("call", id))
	}
	h.feed = h.feed[:0]
	h.ev("request_sent", llmwire.S("id", id), llmwire.S("step", h.step()), llmwire.I("bytes", int64(len(body))))
	h.acts = append(h.acts, hosts.Send(h.cfg.provider, &llmwire.Request{Call: id, Step: h.step(), Body: body}))
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
	if len(h.feed) > 0 && h.cfg.bug != BugDropToolResult {
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

func (h *host) parseOpts() parseOpts {
	o := parseOpts{limit: h.cfg.maxResponseBytes, skipBadEvents: h.cfg.bug == BugSkipBadEvents,
		lenientToolIn: h.cfg.bug == BugLenientToolInput, acceptTruncate: h.cfg.bug == BugAcceptTruncated}
	if h.cfg.bug == BugNoResponseCap {
		o.limit = 0
	}
	return o
}

// segment parses the in-order frame f; true if it ended the call.
func (h *host) segment(f *llmwire.Frame, now int64) bool {
	a := h.call
	a.seq++
	a.frames++
	a.gotFirst = true
	o := h.parseOpts()
	v := a.feed(f.Data, o)
	if !v.done && f.EOF {
		v = a.eof(o.acceptTruncate)
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
	silent := a.silent || h.cfg.bug == BugDropTimeoutOutcome && v.outcome == "timed_out"
	if !silent {
		content := ""
		if v.outcome == "ok" {
			c := a.accepted()
			content = c.Digest()
		}
		h.ev("effect_outcome", llmwire.S("effect", "model_call"), llmwire.S("id", a.id), llmwire.S("outcome", v.outcome),
			llmwire.S("reason", v.reason), llmwire.B("content_delivered", a.content), llmwire.I("frames", a.frames),
			llmwire.I("bytes", a.bytes), llmwire.I("retry_after_ns", a.retryAfter), llmwire.S("content", content))
		if h.refused(record{kind: "outcome", turn: h.turn, id: a.id, value: v.outcome}) {
			h.stop(stopStore, now)
			return
		}
	}
	switch {
	case h.stopping != "":
		h.settle(now)
	case v.outcome == "ok":
		h.startTools(a, now)
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
	h.phase = phaseTools
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
		if h.refused(record{kind: "started", turn: h.turn, id: id, value: "tool_call"}) {
			// Never started: its result says so, and the tools already
			// running are told to stop.
			h.toolDone(id, "failed", stopStore, true, nil)
			h.stop(stopStore, now)
			return
		}
		h.ev("effect_started", llmwire.S("effect", "tool_call"), llmwire.S("id", id), llmwire.I("turn", h.turn+1),
			llmwire.I("attempt", 1), llmwire.S("peer", peer))
		h.acts = append(h.acts, hosts.Send(peer, &llmwire.ToolCall{Call: id, Name: b.name, Args: b.args}))
		h.tools = append(h.tools, pending{id: id, useID: b.id, name: b.name, peer: peer, tok: h.timerAt(now + h.cfg.toolTimeout)})
	}
	h.maybeEndTools(now)
}

func (h *host) toolResult(r *llmwire.ToolResult, now int64) {
	i := h.pendingIndex(r.Call)
	if i < 0 {
		return // late: already settled, or from an earlier life's run no longer pending
	}
	p := h.tools[i]
	h.tools = append(h.tools[:i], h.tools[i+1:]...)
	outcome, reason := "ok", "exit_0"
	switch r.Status {
	case llmwire.ToolFailed:
		outcome, reason = "failed", "exit_"+strconv.FormatUint(r.Exit, 10)
	case llmwire.ToolCancelled:
		// The tool confirms it stopped: the outcome is why it was told.
		outcome, reason = stopOutcome(p.stop)
		if p.stop == "" {
			outcome, reason = "cancelled", "tool_cancelled"
		}
	}
	h.settleTool(p.id, outcome, reason, false, r.Output, now)
}

// stopOutcome is the outcome of a tool told to stop for why, whether it
// confirmed it stopped or its grace ran out without an answer.
func stopOutcome(why string) (outcome, reason string) {
	switch why {
	case stopTimeout:
		return "timed_out", "tool_timeout"
	case stopRestart:
		return "failed", "interrupted_by_restart"
	case stopStore:
		return "failed", stopStore
	}
	return "cancelled", "tool_cancelled"
}

// settleTool records a tool effect's outcome and its result, then ends
// the tools phase if it was the last one awaited.
func (h *host) settleTool(id, outcome, reason string, synthesised bool, out []byte, now int64) {
	stop := h.toolEffectOutcome(id, outcome, reason, int64(len(out)))
	h.toolDone(id, outcome, reason, synthesised, out)
	if stop {
		h.stop(stopStore, now)
		return
	}
	h.maybeEndTools(now)
}

func (h *host) pendingIndex(id string) int {
	for i, p := range h.tools {
		if p.id == id {
			return i
		}
	}
	return -1
}

// toolEffectOutcome records and commits a tool effect's outcome; true if
// the store refused it and the workflow must stop.
func (h *host) toolEffectOutcome(id, outcome, reason string, bytes int64) bool {
	h.ev("effect_outcome", llmwire.S("effect", "tool_call"), llmwire.S("id", id), llmwire.S("outcome", outcome),
		llmwire.S("reason", reason), llmwire.B("content_delivered", false), llmwire.I("frames", 0),
		llmwire.I("bytes", bytes), llmwire.I("retry_after_ns", 0), llmwire.S("content", ""))
	return h.refused(record{kind: "outcome", turn: h.turn, id: id, value: outcome})
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
	told := int64(len(body)) // what the agent says it includes
	if int64(len(body)) > h.cfg.maxToolOutput {
		capped := append(body[:h.cfg.maxToolOutput:h.cfg.maxToolOutput], "\n[output truncated]"...)
		told = int64(len(capped))
		if h.cfg.bug != BugNoOutputCap && h.cfg.bug != BugMisreportOutput {
			body = capped
		}
		if h.cfg.bug == BugNoOutputCap {
			told = int64(len(body))
		}
	}
	if outcome != "ok" {
		prefix := "[tool " + outcome + ": " + reason + "] "
		body = append([]byte(prefix), body...)
		told += int64(len(prefix))
	}
	h.ev("tool_result", llmwire.S("id", id), llmwire.S("outcome", outcome), llmwire.B("synthesised", synthesised),
		llmwire.I("raw_bytes", int64(len(out))), llmwire.B("binary", binary))
	h.feed = append(h.feed, fed{id: id, bytes: told, body: body})
}

func (h *host) maybeEndTools(now int64) {
	if h.phase != phaseTools || len(h.tools) > 0 {
		return
	}
	switch {
	case h.stopping != "":
		h.settle(now)
	case h.resuming:
		h.resuming = false
		h.resume(now)
	default:
		h.endTurn("ok", now)
	}
}

func (h *host) endTurn(outcome string, now int64) {
	if h.refused(record{kind: "turn", turn: h.turn, id: "-", value: outcome}) {
		h.stop(stopStore, now)
		return
	}
	h.ev("turn_end", llmwire.I("turn", h.turn+1), llmwire.S("outcome", outcome), llmwire.I("attempts", h.attempts))
	if h.cfg.bug == BugRepeatTurnEnd {
		h.ev("turn_end", llmwire.I("turn", h.turn+1), llmwire.S("outcome", outcome), llmwire.I("attempts", h.attempts))
	}
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
	case h.phase == phaseTools:
		i := slices.IndexFunc(h.tools, func(p pending) bool { return p.tok == tok })
		if i < 0 {
			return
		}
		p := &h.tools[i]
		if p.stop != "" {
			// Told to stop and silent through its grace: settled without
			// its answer.
			id, why := p.id, p.stop
			h.tools = slices.Delete(h.tools, i, i+1)
			outcome, reason := stopOutcome(why)
			if why == stopCancel {
				reason = "cancel_grace_elapsed"
			}
			h.settleTool(id, outcome, reason, true, nil, now)
			return
		}
		if h.cfg.bug == BugTimeoutUntold {
			id := p.id
			h.tools = slices.Delete(h.tools, i, i+1)
			h.settleTool(id, "timed_out", "tool_timeout", false, nil, now)
			return
		}
		h.tell(i, stopTimeout, now)
	}
}

// tell asks pending tool i to cancel for why and gives it cancel_grace_ns
// to answer: its answer is the outcome, not what the agent assumes.
func (h *host) tell(i int, why string, now int64) {
	p := &h.tools[i]
	p.stop = why
	h.acts = append(h.acts, hosts.Send(p.peer, &llmwire.ToolCancel{Call: p.id}))
	p.tok = h.timerAt(now + h.cfg.cancelGrace)
}

// cancel handles a Cancel mutation at whatever boundary it falls on.
func (h *host) cancel(now int64) {
	if h.cfg.bug == BugIgnoreCancel {
		return
	}
	h.ev("cancel_requested", llmwire.S("phase", phaseNames[h.phase]), llmwire.I("turn", h.turn+1))
	switch {
	case h.phase == phaseDone:
		h.ev("cancel_settled", llmwire.I("turn", h.turn+1), llmwire.S("episode", h.outcome))
		return
	case h.stopping != "":
		return // already winding down
	case h.phase == phaseIdle && h.recovered:
		// A fresh life cancelled before its first tick settles what its
		// last life left open first: every effect still ends in one
		// outcome.
		h.stopping = stopCancel
		if ended := h.recoverStore(now); ended != "" {
			h.phase, h.outcome = phaseDone, ended
			h.ev("cancel_settled", llmwire.I("turn", h.turn+1), llmwire.S("episode", ended))
			return
		}
		if h.phase != phaseTools {
			h.settle(now)
		}
		return
	}
	h.stop(stopCancel, now)
}

// stop winds the episode down for why (stopCancel, stopStore): the call
// in flight is aborted, the tools running are told to cancel, and once
// every one has answered or its grace ran out the episode ends.
func (h *host) stop(why string, now int64) {
	if h.stopping != "" {
		return
	}
	h.stopping = why
	switch h.phase {
	case phaseCalling:
		if h.call != nil {
			outcome, reason := "cancelled", "cancel"
			if why == stopStore {
				outcome, reason = "failed", stopStore
			}
			h.endCall(verdict{done: true, outcome: outcome, reason: reason}, now, true)
			return // endCall settles
		}
	case phaseTools:
		switch {
		case why == stopCancel && h.cfg.bug == BugDropCancelledResults:
			h.tools = h.tools[:0]
		case why == stopCancel && h.cfg.bug == BugSlowCancel:
			// Waits for each tool to end or time out on its own.
		case why == stopCancel && h.cfg.bug == BugCancelUntold:
			for len(h.tools) > 0 {
				id := h.tools[0].id
				h.tools = h.tools[1:]
				h.toolEffectOutcome(id, "cancelled", "cancel", 0)
				h.toolDone(id, "cancelled", "cancel", true, nil)
			}
		default:
			for i := range h.tools {
				if h.tools[i].stop == "" {
					h.tell(i, why, now)
				}
			}
		}
		h.maybeEndTools(now)
		return
	}
	h.settle(now)
}

// settle ends a stopped episode once nothing is pending.
func (h *host) settle(now int64) {
	h.phase = phaseDone
	outcome, reason := "cancelled", "cancel"
	if h.stopping == stopStore {
		outcome, reason = "failed", stopStore
	} else {
		h.ev("cancel_settled", llmwire.I("turn", h.turn+1), llmwire.S("episode", "cancelled"))
	}
	h.outcome = outcome
	h.commit(record{kind: "end", id: "-", turn: h.turn, value: outcome}) // as far as the store takes it
	h.ev("episode_end", llmwire.S("outcome", outcome), llmwire.S("reason", reason), llmwire.I("turns_done", h.turn))
}

// recover resumes from the store a previous life left: it settles the
// effects that life left open (telling its tools first), then resumes
// the first turn with no committed turn record.
func (h *host) recover(now int64) {
	if ended := h.recoverStore(now); ended != "" {
		h.phase, h.outcome = phaseDone, ended
		return
	}
	if h.phase == phaseTools {
		h.resuming = true // resume once the interrupted tools answered
		return
	}
	if h.stopping == "" {
		h.resume(now)
	}
}

// resume continues the workflow a previous life left at h.turn. A turn
// whose model call already ended ok is past its call: its tools are what
// was left (now settled), so it ends without calling the model again —
// another call would retry an attempt that delivered content, and repeat
// its tool use ids.
func (h *host) resume(now int64) {
	answered := false
	var calls []string
	for _, r := range h.st.recs {
		if r.turn != h.turn {
			continue
		}
		switch {
		case r.kind == "started" && r.value == "model_call":
			h.attempts++
			calls = append(calls, r.id)
		case r.kind == "outcome" && r.value == "ok" && slices.Contains(calls, r.id):
			answered = h.cfg.bug != BugRepeatAnsweredTurn
		}
	}
	h.ev("episode_resumed", llmwire.I("turn", h.turn+1), llmwire.I("attempts", h.attempts))
	switch {
	case h.turn >= h.cfg.turns:
		h.startTurn(now)
	case answered:
		h.endTurn("ok", now)
	case h.attempts >= h.cfg.maxAttempts:
		h.endTurn("failed", now)
	default:
		h.startAttempt(now)
	}
}

// recoverStore reads the store a previous life left: it sets the turn to
// the first with no committed turn record and settles every effect that
// life started and never ended: a model call as failed
// (interrupted_by_restart), a tool call by telling every tool peer to
// cancel it and taking the answer (phase tools until they answered). It
// returns the episode's recorded end ("" if none): a life that wrote
// the end had settled and reported everything, so nothing is settled
// again then, even an outcome the store refused.
func (h *host) recoverStore(now int64) string {
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
			if i := slices.IndexFunc(open, func(o record) bool { return o.id == r.id }); i >= 0 {
				open = slices.Delete(open, i, i+1)
			}
		case "turn":
			next = max(next, r.turn+1)
		case "end":
			ended = r.value
		}
	}
	h.turn = next
	if ended != "" {
		return ended
	}
	stop := false
	for _, o := range open {
		if o.value == "tool_call" {
			// The run may still be going: tell every tool (only the one
			// running it answers) and take its answer.
			for _, p := range h.cfg.tools {
				h.acts = append(h.acts, hosts.Send(p.Value, &llmwire.ToolCancel{Call: o.id}))
			}
			h.tools = append(h.tools, pending{id: o.id, stop: stopRestart, tok: h.timerAt(now + h.cfg.cancelGrace)})
			h.phase = phaseTools
			continue
		}
		h.ev("effect_outcome", llmwire.S("effect", o.value), llmwire.S("id", o.id), llmwire.S("outcome", "failed"),
			llmwire.S("reason", "interrupted_by_restart"), llmwire.B("content_delivered", false), llmwire.I("frames", 0),
			llmwire.I("bytes", 0), llmwire.I("retry_after_ns", 0), llmwire.S("content", ""))
		stop = h.refused(record{kind: "outcome", turn: o.turn, id: o.id, value: "failed"}) || stop
	}
	if stop {
		h.stop(stopStore, now)
	}
	return ""
}
