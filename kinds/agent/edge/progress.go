package edge

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/network"
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
// of either (fraction: an instant past the reference episode's end, at
// the same fraction of its progress), the event before it firing (after:
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
// instant is of the scenario's duration; a restart after the kill before
// it, by the time between them.
func anchors(control []network.Mutation, steps []step, end, duration int64) []anchor {
	out := make([]anchor, len(control))
	for i, m := range control {
		if m.Kind == network.PeerResurrect && i > 0 && control[i-1].Kind == network.PeerKill {
			out[i] = anchor{On: "after", N: i, Delay: m.At - control[i-1].At}
			continue
		}
		if m.At > end && len(steps) > 0 {
			n := int(int64(len(steps))*min(m.At, duration)/max(duration, 1)) + 1
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
