// Package tool is the `tool` host kind: it runs a tool call with a
// scripted effect (seed 000's tool catalog) and records its mutation
// state as tool_state events: started, then partial where the effect
// writes some of its output, then exactly one of committed, failed or
// cancelled.
//
// kind_config.effects is an ordered list; a call takes the first unused
// entry keyed by its call id (`call`), else by its tool name (`name`),
// else the first unused unkeyed one; with none left it succeeds at once
// with a small output. Effects: success, exit_nonzero, hang (never ends
// until cancelled), huge_output, binary_output, partial_then_fail,
// cancelled (the effect is cancelled from outside half-way: the tool
// reports it so). A ToolCancel from the agent, or a Cancel mutation aimed
// at the tool, cancels every run in progress.
package tool

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of tool hosts and their events.
const Tag = "tool"

// Effect names.
const (
	Success       = "success"
	ExitNonzero   = "exit_nonzero"
	Hang          = "hang"
	HugeOutput    = "huge_output"
	BinaryOutput  = "binary_output"
	PartialFail   = "partial_then_fail"
	CancelledMid  = "cancelled"
	maxTime       = int64(1) << 62
	maxOutput     = int64(llmwire.MaxMessageBytes - 4096)
	defaultOutput = 64
	defaultHuge   = 1 << 20
)

// Effects lists every effect, in catalog order.
var Effects = []string{Success, ExitNonzero, Hang, HugeOutput, BinaryOutput, PartialFail, CancelledMid}

// Kind is the tool host kind for the registry.
var Kind hosts.Kind = kind{}

// kind is the tool kind: the runtime, a "down" state (hosts.Restartable),
// cancellable hosts (hosts.Canceller), a fault catalog (hosts.Faulter), a
// summary line (pane.Summarizer) and a chart (hosts.Charts). The up/down
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

func (kind) Validate(config map[string]any, _ []string) []hosts.FieldError {
	_, errs := parse(config)
	return errs
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
}

var series = []hosts.Series{{ID: "tool_bytes", Title: "tool output", Unit: "B", Types: []string{"tool_state"}, Field: "bytes", Agg: hosts.AggMaxMedian,
	Doc: "largest and median output a tool call produced"}}

// Effect is one scripted tool run of kind_config.effects. The HTTP edge
// (package edge) applies the same effects to the real commands an
// outside agent runs (ParseEffects, Pick).
type Effect = effect

// ParseEffects reads a tool's kind_config.effects, returning every problem.
func ParseEffects(config map[string]any) ([]Effect, []hosts.FieldError) { return parse(config) }

// Idempotent reports a tool's kind_config idempotent = true: running
// the same tool use again is harmless (a read, a query), so
// tool_run_once lets it run twice; the default is false, a tool with
// effects (docs/assertions.md, "What the edge saw").
func Idempotent(config map[string]any) bool {
	return kindcfg.Root(&kindcfg.Reader{}, config).Bool("idempotent")
}

// effect is one scripted tool run.
type effect struct {
	Call, Name  string
	Effect      string
	DurationNs  int64
	OutputBytes int64
	ExitCode    int64
}

func parse(config map[string]any) ([]effect, []hosts.FieldError) {
	r := &kindcfg.Reader{}
	t := kindcfg.Root(r, config)
	t.Keys("effects", "idempotent")
	t.Bool("idempotent")
	var out []effect
	for _, et := range t.Tables("effects") {
		et.Keys("call", "name", "effect", "duration_ns", "output_bytes", "exit_code")
		e := effect{
			Call:       et.Str("call", ""),
			Name:       et.Str("name", ""),
			Effect:     et.OneOf("effect", Success, Effects),
			DurationNs: et.Int("duration_ns", 1_000_000, 0, maxTime),
		}
		def := int64(defaultOutput)
		if e.Effect == HugeOutput {
			def = defaultHuge
		}
		e.OutputBytes = et.Int("output_bytes", def, 0, maxOutput)
		e.ExitCode = et.Int("exit_code", 1, 1, 255)
		if et.Has("exit_code") && e.Effect != ExitNonzero && e.Effect != PartialFail {
			r.Add(et.Path("exit_code"), "only exit_nonzero and partial_then_fail exit nonzero")
		}
		out = append(out, e)
	}
	return out, r.Errs
}

type host struct {
	id         string
	idempotent bool
	effects    []effect // immutable: shared by clones
	used       []bool
	runs       []run
	nextTok    uint64
	acts       []hosts.Action
}

// run is one tool call in progress.
type run struct {
	call, from string
	e          int // index into effects, -1 for the default
	partial    bool
	tok        uint64
}

func newHost(id string, config map[string]any, _ string, _ []string, _ *rng.Stream) hosts.Host {
	effs, _ := parse(config)
	return &host{id: id, idempotent: Idempotent(config), effects: effs, used: make([]bool, len(effs))}
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

func (h *host) Tick(int64) []hosts.Action { return append(h.acts[:0], hosts.HaltAction()) }

func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.acts = h.acts[:0]
	switch m := m.(type) {
	case *hosts.Delivery:
		switch x := m.Payload.(type) {
		case *llmwire.ToolCall:
			h.start(m.From, x, now)
		case *llmwire.ToolCancel:
			if i := slices.IndexFunc(h.runs, func(r run) bool { return r.call == x.Call }); i >= 0 {
				h.cancel(i, "tool_cancel")
			}
		}
	case *hosts.Cancel:
		for len(h.runs) > 0 {
			h.cancel(0, "cancel_mutation")
		}
	case *hosts.TimerFired:
		if i := slices.IndexFunc(h.runs, func(r run) bool { return r.tok == m.Token }); i >= 0 {
			h.step(i, now)
		}
	}
	return h.acts
}

func (h *host) pick(call, name string) int { return Pick(h.effects, h.used, call, name) }

// Pick is the effect a run of tool use call named name takes: the first
// unused one keyed by call, else by name, else the first unused unkeyed
// one; -1 when none is left (the run then succeeds at once with a small
// output). used marks the effects taken (len(used) == len(effects)).
func Pick(effects []Effect, used []bool, call, name string) int {
	for _, want := range []func(e effect) bool{
		func(e effect) bool { return e.Call != "" && e.Call == call },
		func(e effect) bool { return e.Call == "" && e.Name != "" && e.Name == name },
		func(e effect) bool { return e.Call == "" && e.Name == "" },
	} {
		for i, e := range effects {
			if !used[i] && want(e) {
				return i
			}
		}
	}
	return -1
}

func (h *host) eff(i int) effect {
	if i < 0 {
		return effect{Effect: Success, OutputBytes: defaultOutput}
	}
	return h.effects[i]
}

func (h *host) start(from string, c *llmwire.ToolCall, now int64) {
	i := h.pick(c.Call, c.Name)
	if i >= 0 {
		h.used[i] = true
	}
	e := h.eff(i)
	if h.idempotent {
		// Only a declared tool's records carry it: every other run's
		// records are as they were.
		h.acts = append(h.acts, hosts.Record(llmwire.Ev("tool_state", llmwire.S("call", c.Call), llmwire.S("state", "started"),
			llmwire.S("effect", e.Effect), llmwire.I("bytes", 0), llmwire.B("idempotent", true))))
	} else {
		h.state(c.Call, "started", e.Effect, 0)
	}
	h.nextTok++
	h.runs = append(h.runs, run{call: c.Call, from: from, e: i, tok: h.nextTok})
	switch e.Effect {
	case Hang:
		return // never ends until cancelled
	case PartialFail, CancelledMid:
		h.acts = append(h.acts, hosts.Timer(now+e.DurationNs/2, h.nextTok))
	default:
		h.acts = append(h.acts, hosts.Timer(now+e.DurationNs, h.nextTok))
	}
}

// step advances run i at its timer: a partial write, or the end.
func (h *host) step(i int, now int64) {
	r := &h.runs[i]
	e := h.eff(r.e)
	if (e.Effect == PartialFail || e.Effect == CancelledMid) && !r.partial {
		r.partial = true
		h.state(r.call, "partial", e.Effect, e.OutputBytes/2)
		h.nextTok++
		r.tok = h.nextTok
		h.acts = append(h.acts, hosts.Timer(now+e.DurationNs-e.DurationNs/2, r.tok))
		return
	}
	res := &llmwire.ToolResult{Call: r.call}
	switch e.Effect {
	case Success, HugeOutput:
		res.Status, res.Output = llmwire.ToolOK, Text(r.call, e.OutputBytes)
		h.state(r.call, "committed", e.Effect, e.OutputBytes)
	case BinaryOutput:
		res.Status, res.Output = llmwire.ToolOK, Binary(e.OutputBytes)
		h.state(r.call, "committed", e.Effect, e.OutputBytes)
	case ExitNonzero:
		res.Status, res.Exit, res.Output = llmwire.ToolFailed, uint64(e.ExitCode), Text(r.call, e.OutputBytes)
		h.state(r.call, "failed", e.Effect, e.OutputBytes)
	case PartialFail:
		res.Status, res.Exit, res.Output = llmwire.ToolFailed, uint64(e.ExitCode), Text(r.call, e.OutputBytes/2)
		h.state(r.call, "failed", e.Effect, e.OutputBytes/2)
	case CancelledMid:
		res.Status, res.Exit, res.Output = llmwire.ToolCancelled, 130, Text(r.call, e.OutputBytes/2)
		h.state(r.call, "cancelled", e.Effect, e.OutputBytes/2)
	}
	h.acts = append(h.acts, hosts.Send(r.from, res))
	h.runs = slices.Delete(h.runs, i, i+1)
}

// cancel ends run i as cancelled, keeping what it had written.
func (h *host) cancel(i int, by string) {
	r := h.runs[i]
	e := h.eff(r.e)
	n := int64(0)
	if r.partial {
		n = e.OutputBytes / 2
	}
	h.acts = append(h.acts, hosts.Record(llmwire.Ev("tool_state", llmwire.S("call", r.call), llmwire.S("state", "cancelled"),
		llmwire.S("effect", e.Effect), llmwire.I("bytes", n), llmwire.S("by", by))))
	h.acts = append(h.acts, hosts.Send(r.from, &llmwire.ToolResult{Call: r.call, Status: llmwire.ToolCancelled, Exit: 130, Output: Text(r.call, n)}))
	h.runs = slices.Delete(h.runs, i, i+1)
}

func (h *host) state(call, state, eff string, bytes int64) {
	h.acts = append(h.acts, hosts.Record(llmwire.Ev("tool_state", llmwire.S("call", call), llmwire.S("state", state),
		llmwire.S("effect", eff), llmwire.I("bytes", bytes))))
}

// text is n bytes of deterministic printable output.
func Text(call string, n int64) []byte {
	line := fmt.Sprintf("output of %s: ok\n", call)
	out := make([]byte, n)
	for i := range out {
		out[i] = line[i%len(line)]
	}
	return out
}

// Binary is n bytes cycling through every byte value, NUL and invalid
// UTF-8 included.
func Binary(n int64) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(i * 7)
	}
	return out
}

// Snapshot reports the runs in progress and the effects used.
func (h *host) Snapshot() []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, h.id)
	b = append(b, `,"effects":`...)
	b = strconv.AppendInt(b, int64(len(h.effects)), 10)
	n := 0
	for _, u := range h.used {
		if u {
			n++
		}
	}
	b = append(b, `,"used":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"runs":[`...)
	for i, r := range h.runs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"call":`...)
		b = jsonw.AppendString(b, r.call)
		b = append(b, `,"effect":`...)
		b = jsonw.AppendString(b, h.eff(r.e).Effect)
		st := "started"
		if r.partial {
			st = "partial"
		}
		b = append(b, `,"state":`...)
		b = jsonw.AppendString(b, st)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (h *host) Clone() hosts.Host {
	c := *h
	c.used = slices.Clone(h.used)
	c.runs = slices.Clone(h.runs)
	c.acts = nil
	return &c
}
