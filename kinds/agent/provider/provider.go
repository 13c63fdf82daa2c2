// Package provider is the `provider` host kind: a scripted model
// provider (seed 001's stub, seed 000's provider fault catalog). A
// Request arrives over the network; the response streams back as the
// bytes the Anthropic Messages API sends for a streaming request — the
// HTTP status line and headers, then one SSE event per network message
// (stream.go) — so the link's bandwidth, latency and loss apply to it.
// Every delay is a timer on the virtual clock: a script declaring 30 s of
// latency runs in no wall time.
//
// The script (kind_config, or a file beside the scenario through
// kind_config.script_file) is an ordered list of entries, optionally
// keyed by a step id: a request for step S takes the first unused entry
// keyed S, else the first unused unkeyed entry; with none left the
// provider answers 500 ("script exhausted").
package provider

import (
	"slices"
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of provider hosts and their events.
const Tag = "provider"

// Kind is the provider host kind for the registry.
var Kind hosts.Kind = kind{}

// kind is the provider kind: the runtime, a "down" state
// (hosts.Restartable), a fault catalog (hosts.Faulter), a summary line
// (pane.Summarizer) and a chart (hosts.Charts). The up/down states and
// the codec are llmwire.Family's, the same for the whole family; its
// other one-line methods read as the other agent-family kinds' do, on
// purpose: each answers one of the contract's small interfaces.
type kind struct{ llmwire.Family }

func (kind) Tag() string                    { return Tag }
func (kind) Faults() *hosts.FaultCatalog    { return Catalog }
func (kind) Summary(snapshot []byte) string { return Summary(snapshot) }
func (kind) Series() []hosts.Series         { return series }

func (kind) Validate(config map[string]any, _ []string) []hosts.FieldError {
	_, errs := ParseScript(config)
	return errs
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
}

var series = []hosts.Series{{ID: "provider_request_bytes", Title: "requests received", Unit: "B", Types: []string{"request_received"}, Field: "bytes", Agg: hosts.AggMaxMedian,
	Doc: "largest and median request the provider received"}}

type host struct {
	id      string
	sc      *Script // immutable after New: shared by clones
	used    []bool
	streams []stream
	nextTok uint64
	served  int64
	acts    []hosts.Action
}

// stream is one response being sent.
type stream struct {
	call, to string
	entry    int
	resp     *Response // immutable once rendered: shared by clones
	next     int       // the next piece to send
	sent     int64     // body bytes sent so far
	tok      uint64
}

func newHost(id string, config map[string]any, _ string, _ []string, _ *rng.Stream) hosts.Host {
	sc, _ := ParseScript(config)
	return &host{id: id, sc: &sc, used: make([]bool, len(sc.Entries))}
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

// Tick halts ticks: a provider only answers.
func (h *host) Tick(int64) []hosts.Action {
	return append(h.acts[:0], hosts.HaltAction())
}

func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.acts = h.acts[:0]
	switch m := m.(type) {
	case *hosts.Delivery:
		switch x := m.Payload.(type) {
		case *llmwire.Request:
			h.request(m.From, x, now)
		case *llmwire.Abort:
			if i := h.find(x.Call); i >= 0 {
				s := h.streams[i]
				h.record(llmwire.Ev("response_aborted", llmwire.S("call", s.call), llmwire.I("frames", int64(s.next)), llmwire.I("bytes", s.sent)))
				h.streams = slices.Delete(h.streams, i, i+1)
			}
		}
	case *hosts.TimerFired:
		h.fire(m.Token, now)
	}
	return h.acts
}

// Pick returns the entry a request for step takes — the first unused
// entry keyed by step, else the first unused unkeyed one — or -1. used
// marks the entries already taken (len(used) == len(s.Entries)). The
// simulated provider and the HTTP edge (kinds/agent/providerserve/) both pick
// through it: one copy of the script's semantics.
func (s *Script) Pick(used []bool, step string) int {
	if step != "" {
		for i, e := range s.Entries {
			if !used[i] && e.Step == step {
				return i
			}
		}
	}
	for i, e := range s.Entries {
		if !used[i] && e.Step == "" {
			return i
		}
	}
	return -1
}

// Respond picks the entry a request for step takes, marks it used and
// renders it for call; with none left it is the 500 "script exhausted"
// response and entry -1.
func (s *Script) Respond(used []bool, step, call string) (Response, int) {
	i := s.Pick(used, step)
	if i < 0 {
		return errorResponse(500, "req_"+call, "api_error", "script exhausted", 0), -1
	}
	used[i] = true
	return s.Render(&s.Entries[i], call), i
}

func (h *host) request(from string, req *llmwire.Request, now int64) {
	h.served++
	resp, i := h.sc.Respond(h.used, req.Step, req.Call)
	fault := "script_exhausted"
	if i >= 0 {
		fault = h.sc.Entries[i].Fault.Kind
	}
	h.record(llmwire.Ev("request_received", llmwire.S("call", req.Call), llmwire.S("from", from), llmwire.S("step", req.Step),
		llmwire.I("entry", int64(i)), llmwire.I("bytes", int64(len(req.Body))), llmwire.I("status", int64(resp.Status)),
		llmwire.S("fault", fault)))
	// What the request carries back of tool runs, measured here: the
	// fact output_bounded checks an agent's own account against.
	results, _ := llmwire.ToolResults(req.Body)
	for _, r := range results {
		h.record(llmwire.Ev("tool_result_received", llmwire.S("call", req.Call), llmwire.S("id", r.ID), llmwire.I("bytes", r.Bytes)))
	}
	if resp.Never {
		return // timeout before the first byte: nothing is ever sent
	}
	h.nextTok++
	h.streams = append(h.streams, stream{call: req.Call, to: from, entry: i, resp: &resp, tok: h.nextTok})
	h.acts = append(h.acts, hosts.Timer(now+resp.Pieces[0].DelayNs, h.nextTok))
}

func (h *host) find(call string) int {
	return slices.IndexFunc(h.streams, func(s stream) bool { return s.call == call })
}

// fire sends every piece due now of the stream whose timer came due.
func (h *host) fire(tok uint64, now int64) {
	i := slices.IndexFunc(h.streams, func(s stream) bool { return s.tok == tok })
	if i < 0 {
		return // aborted meanwhile
	}
	s := &h.streams[i]
	r := s.resp
	for {
		p := r.Pieces[s.next]
		data := p.Data
		if s.next == 0 {
			data = append(r.Head(), p.Data...)
		}
		last := s.next == len(r.Pieces)-1
		h.acts = append(h.acts, hosts.Send(s.to, &llmwire.Frame{Call: s.call, Seq: uint64(s.next), EOF: last && !r.Hang, Data: data}))
		s.sent += int64(len(p.Data))
		s.next++
		if last {
			typ := "response_end"
			if r.Hang {
				typ = "response_hang"
			}
			h.record(llmwire.Ev(typ, llmwire.S("call", s.call), llmwire.I("frames", int64(s.next)),
				llmwire.I("status", int64(r.Status)), llmwire.B("complete", r.Complete), llmwire.I("bytes", s.sent),
				llmwire.S("content", r.Carried), llmwire.S("served", r.ServedDigest())))
			h.streams = slices.Delete(h.streams, i, i+1)
			return
		}
		if d := r.Pieces[s.next].DelayNs; d > 0 {
			h.nextTok++
			s.tok = h.nextTok
			h.acts = append(h.acts, hosts.Timer(now+d, s.tok))
			return
		}
	}
}

func (h *host) record(ev *llmwire.Event) { h.acts = append(h.acts, hosts.Record(ev)) }

// Snapshot reports the script position and the streams in flight.
//
// A snapshot appended by hand, alike in shape to every kind's: the members
// are the provider's.
func (h *host) Snapshot() []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, h.id)
	b = append(b, `,"served":`...)
	b = strconv.AppendInt(b, h.served, 10)
	b = append(b, `,"entries":`...)
	b = strconv.AppendInt(b, int64(len(h.used)), 10)
	b = append(b, `,"used":[`...)
	first := true
	for i, u := range h.used {
		if u {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendInt(b, int64(i), 10)
		}
	}
	b = append(b, `],"streams":[`...)
	for i, s := range h.streams {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"call":`...)
		b = jsonw.AppendString(b, s.call)
		b = append(b, `,"entry":`...)
		b = strconv.AppendInt(b, int64(s.entry), 10)
		b = append(b, `,"sent":`...)
		b = strconv.AppendInt(b, int64(s.next), 10)
		b = append(b, `,"pieces":`...)
		b = strconv.AppendInt(b, int64(len(s.resp.Pieces)), 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (h *host) Clone() hosts.Host {
	c := *h
	c.used = slices.Clone(h.used)
	c.streams = slices.Clone(h.streams)
	c.acts = nil
	return &c
}
