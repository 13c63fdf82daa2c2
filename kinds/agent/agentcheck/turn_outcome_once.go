package agentcheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/provider"
)

// turnOutcomeOnce is turn_outcome_once { peer }: every turn the peer
// made a request for ends in exactly one turn_end, and no turn ends
// twice. Which turn a request was for is a fact only a provider that
// reads the conversation records (request_received `turn`: the HTTP
// edge, which counts the assistant messages an outside agent sends);
// with none, only the second half applies. An agent killed and not
// restarted by the end owes no outcome for the turns it was killed in.
type turnOutcomeOnce struct {
	base
	peer      string
	requested map[int64]mark // turn → its first request
	ended     map[int64]bool
	killed    bool
}

type turnPayload struct {
	From string `json:"from"`
	Turn int64  `json:"turn"`
}

func newTurnOutcomeOnce(p TurnOutcomeOnce) checker {
	return &turnOutcomeOnce{peer: p.Peer, requested: map[int64]mark{}, ended: map[int64]bool{}}
}

func (c *turnOutcomeOnce) wants() want { return wantMutations }

// onRecord opens as every checker's does, alike in shape: its own facts
// (the provider's requests) and claims (the agent's turn ends).
func (c *turnOutcomeOnce) onRecord(rec *hosts.EventRec) {
	fact := rec.KindTag == provider.Tag && rec.Type == "request_received"
	claim := rec.KindTag == agentTag && rec.HostID == c.peer && rec.Type == "turn_end"
	if !fact && !claim {
		return
	}
	var p turnPayload
	if json.Unmarshal(rec.Event, &p) != nil {
		return // the evaluator reports malformed records itself
	}
	m := at(rec)
	if fact {
		if _, seen := c.requested[p.Turn]; p.From == c.peer && p.Turn > 0 && !seen {
			c.requested[p.Turn] = m
		}
		return
	}
	if c.ended[p.Turn] {
		c.res.Resolve(hosts.Fail, fmt.Sprintf("turn %d ended twice", p.Turn), m)
		return
	}
	c.ended[p.Turn] = true
}

func (c *turnOutcomeOnce) onMutation(f mutationFact) {
	if f.peer != c.peer {
		return
	}
	switch f.kind {
	case "PeerKill":
		c.killed = true
	case "PeerResurrect":
		c.killed = false
	}
}

func (c *turnOutcomeOnce) finish(int64) {
	for _, t := range slices.Sorted(maps.Keys(c.requested)) {
		if !c.ended[t] && !c.killed {
			c.res.Resolve(hosts.Fail, fmt.Sprintf("turn %d had requests but the agent never reported how it ended", t), c.requested[t])
			return
		}
	}
	c.res.Resolve(hosts.Pass, fmt.Sprintf("every turn requested ended once (%d requested, %d ended)", len(c.requested), len(c.ended)))
}

// clone as every checker's, alike in shape: its result and its own maps.
func (c *turnOutcomeOnce) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.requested = maps.Clone(c.requested)
	d.ended = maps.Clone(c.ended)
	return &d
}
