package edge

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// Schedules of the control events (Options.Schedule).
const (
	// ScheduleProgress fires each Cancel, kill and restart at the agent's
	// progress where the scenario's instant falls in the built-in agent's
	// episode: a real agent finishes in seconds, and an instant drawn
	// over 40 s of schedule time would come after it.
	ScheduleProgress = "progress"
	// ScheduleTime fires each at its instant, counted from the episode's
	// start.
	ScheduleTime = "time"
)

// anchor is where in the agent's progress a control event fires: the
// n-th model request (request), the n-th tool run (tool_use), the n-th
// of either (fraction: an instant past the reference episode's end,
// spread over its progress as anchors says), the event before it firing (after:
// a restart follows its kill) or the episode's start; then delay of
// schedule time later.
type anchor struct {
	On    string `json:"on"` // start, request, tool_use, fraction, after
	N     int    `json:"n,omitempty"`
	Delay int64  `json:"delay_ns"`
}

func (a anchor) String() string {
	at := a.On
	if a.On != "start" {
		at = fmt.Sprintf("%s %d", a.On, a.N)
	}
	return fmt.Sprintf("%s + %v", at, time.Duration(a.Delay))
}

// Span is the schedule time a scenario's control instants were placed
// in: a property's draw (DrawSpan), or a written scenario's duration.
type Span struct{ From, To int64 }

// DrawSpan is the schedule time p draws the Cancel, kill and restart
// instants of its seeds in: from the earliest to the latest at_ns of the
// [[space.mutations]] groups holding one (a restart's after_ns follows
// its kill and is placed after it); zero when no group holds one.
func DrawSpan(p *property.Property) Span {
	var s Span
	for _, g := range p.Space.Mutations {
		if !slices.ContainsFunc(g.Mutations, func(m map[string]any) bool {
			name, _ := m["kind"].(string)
			k, _ := network.ParseMutationKind(name)
			return k == network.Cancel || k == network.PeerKill || k == network.PeerResurrect
		}) {
			continue
		}
		if s == (Span{}) {
			s = Span{g.AtNs.Min, g.AtNs.Max}
		}
		s = Span{min(s.From, g.AtNs.Min), max(s.To, g.AtNs.Max)}
	}
	return s
}

// step is one unit of the reference agent's progress.
type step struct {
	at   int64
	tool bool // a tool run started; else a model request
}

// referenceRun runs sc in the simulator with the built-in agent and
// returns its progress steps before the agent's first episode_end, and
// that end (the scenario's duration when it never ends).
func referenceRun(sc *scenarios.Scenario, agentID, providerID string) ([]step, int64, error) {
	m := &progressMon{agent: agentID, provider: providerID, end: -1}
	e, err := engine.New(sc, builtin.Registry(), engine.Options{Monitor: m})
	if err != nil {
		return nil, 0, err
	}
	e.RunUntil(func(engine.StepInfo) bool { return m.end >= 0 })
	if err := e.Err(); err != nil {
		return nil, 0, err
	}
	if m.end < 0 {
		m.end = sc.DurationNs
	}
	return m.steps, m.end, nil
}

// progressMon collects the reference run's steps.
type progressMon struct {
	agent, provider string
	steps           []step
	end             int64
}

func (m *progressMon) Observe(_ int64, at int64, host, _, typ string, payload []byte) {
	if m.end >= 0 {
		return
	}
	switch {
	case typ == "episode_end" && host == m.agent:
		m.end = at
	case typ == "request_received" && host == m.provider:
		m.steps = append(m.steps, step{at: at})
	case typ == "tool_state" && bytes.Contains(payload, []byte(`"state":"started"`)):
		m.steps = append(m.steps, step{at: at, tool: true})
	}
}

func (m *progressMon) Resolved() bool        { return false }
func (m *progressMon) Clone() engine.Monitor { c := *m; c.steps = slices.Clone(m.steps); return &c }

// anchors places each control event (sorted by time) in the reference
// run's progress: an instant inside the episode after the last request
// or tool run before it, by the schedule time between them; an instant
// past the episode's end at the same fraction of its steps as the
// instant is of the part of span past the end (the end to span.To: at
// or past To, the last step); a restart after the kill before it, by the
// time between them.
//
// The fraction is of that part, not of the scenario's duration: a
// property draws its instants uniformly over its span so that, over
// seeds, they meet every phase of the agent's life, and those the
// built-in agent's episode does not cover, uniform over the rest of
// the span, are spread as uniformly over the agent's steps. agent_faults
// draws in 0.1–40 s of a 300 s scenario; at their fraction of the
// duration every such kill landed in the first 13 % of the steps, before
// turn 1 committed (issue 31). A scenario's own latest control instant
// is no span: a lone Cancel would always be its own last step.
func anchors(control []network.Mutation, steps []step, end int64, span Span) []anchor {
	out := make([]anchor, len(control))
	lo, hi := max(end, span.From), span.To
	for i, m := range control {
		if m.Kind == network.PeerResurrect && i > 0 && control[i-1].Kind == network.PeerKill {
			out[i] = anchor{On: "after", N: i, Delay: m.At - control[i-1].At}
			continue
		}
		if m.At > end && len(steps) > 0 {
			n := len(steps)
			if m.At < hi {
				n = int(int64(len(steps))*max(m.At-lo, 0)/max(hi-lo, 1)) + 1
			}
			out[i] = anchor{On: "fraction", N: min(n, len(steps))}
			continue
		}
		last := -1
		for j, s := range steps {
			if s.at <= m.At {
				last = j
			}
		}
		if last < 0 {
			out[i] = anchor{On: "start", Delay: m.At}
			continue
		}
		n, kind := 0, "request"
		if steps[last].tool {
			kind = "tool_use"
		}
		for _, s := range steps[:last+1] {
			if s.tool == steps[last].tool {
				n++
			}
		}
		out[i] = anchor{On: kind, N: n, Delay: m.At - steps[last].at}
	}
	return out
}
