package agentcheck

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/provider"
)

// responseBounded is response_bounded { peer, max_bytes }: a model
// response the agent accepted (effect_outcome ok) must be at most
// max_bytes as the provider measured it (the body bytes its
// response_end, response_hang or response_aborted records), whatever the
// agent says it read. An agent with no limit reads a runaway response
// to its end and takes it.
type responseBounded struct {
	base
	peer    string
	maxN    int64
	sent    map[string]int64 // provider call → body bytes it sent
	largest int64
}

func newResponseBounded(p ResponseBounded) checker {
	return &responseBounded{peer: p.Peer, maxN: p.MaxBytes, sent: map[string]int64{}}
}

func (c *responseBounded) wants() want { return 0 }

// Every checker's onRecord opens alike, keeping the facts and the claims it
// reads and decoding them: which records those are, and into what payload,
// is each checker's own.
func (c *responseBounded) onRecord(rec *hosts.EventRec) {
	fact := rec.KindTag == provider.Tag && (rec.Type == "response_end" || rec.Type == "response_hang" || rec.Type == "response_aborted")
	claim := rec.KindTag == agentTag && rec.HostID == c.peer && rec.Type == "effect_outcome"
	if !fact && !claim {
		return
	}
	var p agentPayload
	if json.Unmarshal(rec.Event, &p) != nil {
		return // the evaluator reports malformed records itself
	}
	if fact {
		c.sent[p.Call] = p.Bytes
		return
	}
	if p.Effect != "model_call" || p.Outcome != "ok" {
		return
	}
	n := c.sent[p.ID]
	c.largest = max(c.largest, n)
	if n > c.maxN {
		c.res.Resolve(hosts.Fail, fmt.Sprintf("model call %q was accepted as ok with a response of %d bytes (as the provider sent it), more than max_bytes %d", p.ID, n, c.maxN),
			at(rec))
	}
}

func (c *responseBounded) finish(int64) {
	c.res.Resolve(hosts.Pass, fmt.Sprintf("every response accepted as ok was within %d bytes (largest %d)", c.maxN, c.largest))
}

func (c *responseBounded) clone() checker {
	d := *c
	d.res = c.res.Clone()
	d.sent = maps.Clone(c.sent)
	return &d
}
