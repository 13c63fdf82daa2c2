package agentcheck

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/tool"
)

// noCommitAfterSettle is no_commit_after_settle { peer }: once the agent
// records a tool call as ended otherwise than ok (cancelled, timed_out,
// failed), the tool running it must not go on with it — no partial
// write, no commit, no failure of its own later in the stream. An agent
// that settles a tool without telling it (a Cancel or a deadline it
// keeps to itself) claims an effect stopped that then happens.
type noCommitAfterSettle struct {
	base
	peer    string
	settled map[string]settledTool
}

type settledTool struct {
	m       mark
	outcome string
}

func newNoCommitAfterSettle(p NoCommitAfterSettle) checker {
	return &noCommitAfterSettle{peer: p.Peer, settled: map[string]settledTool{}}
}

func (c *noCommitAfterSettle) wants() want { return 0 }

// onRecord opens as every checker's does, with its own facts and claims.
func (c *noCommitAfterSettle) onRecord(rec *hosts.EventRec) {
	fact := rec.KindTag == tool.Tag && rec.Type == "tool_state"
	claim := rec.KindTag == agentTag && rec.HostID == c.peer && rec.Type == "effect_outcome"
	if !fact && !claim {
		return
	}
	var p agentPayload
	if json.Unmarshal(rec.Event, &p) != nil {
		return // the evaluator reports malformed records itself
	}
	m := at(rec)
	if claim {
		if p.Effect == "tool_call" && p.Outcome != "ok" {
			if _, seen := c.settled[p.ID]; !seen {
				c.settled[p.ID] = settledTool{m, p.Outcome}
			}
		}
		return
	}
	s, ok := c.settled[p.Call]
	if !ok || p.State == "cancelled" || p.State == "started" {
		return
	}
	c.res.Resolve(hosts.Fail, fmt.Sprintf("tool call %q: the agent recorded it %s at %s, and the tool went on: %s at %s (it was never told to stop)",
		p.Call, s.outcome, hosts.Seconds(s.m.TimeNs), p.State, hosts.Seconds(rec.TimeNs)), s.m, m)
}

func (c *noCommitAfterSettle) finish(int64) {
	c.res.Resolve(hosts.Pass, fmt.Sprintf("no tool went on with a run the agent had settled (%d settled otherwise than ok)", len(c.settled)))
}

func (c *noCommitAfterSettle) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.settled = maps.Clone(c.settled)
	return &d
}
