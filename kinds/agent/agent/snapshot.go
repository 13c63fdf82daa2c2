package agent

import (
	"slices"
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
)

// Snapshot reports the turn, the pending call, retries and the store.
func (h *host) Snapshot() []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, h.id)
	b = append(b, `,"phase":`...)
	b = jsonw.AppendString(b, phaseNames[h.phase])
	b = append(b, `,"turn":`...)
	b = strconv.AppendInt(b, h.turn+1, 10)
	b = append(b, `,"turns":`...)
	b = strconv.AppendInt(b, h.cfg.turns, 10)
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, h.attempts, 10)
	b = append(b, `,"pending_call":`...)
	if h.call != nil {
		b = append(b, `{"id":`...)
		b = jsonw.AppendString(b, h.call.id)
		b = append(b, `,"frames":`...)
		b = strconv.AppendInt(b, h.call.frames, 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, h.call.bytes, 10)
		b = append(b, `,"content_delivered":`...)
		b = strconv.AppendBool(b, h.call.content)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"pending_tools":[`...)
	for i, p := range h.tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, p.id)
	}
	b = append(b, `],"retries":`...)
	b = strconv.AppendInt(b, h.retries, 10)
	b = append(b, `,"cancelling":`...)
	b = strconv.AppendBool(b, h.stopping != "")
	b = append(b, `,"outcome":`...)
	b = jsonw.AppendString(b, h.outcome)
	b = append(b, `,"store_len":`...)
	b = strconv.AppendInt(b, int64(len(h.st.recs)), 10)
	b = append(b, `,"store":`...)
	b = jsonw.AppendString(b, string(h.st.marshal()))
	return append(b, '}')
}

func (h *host) Clone() hosts.Host {
	c := *h
	c.r = h.r.Clone()
	c.call = h.call.clone()
	c.tools = slices.Clone(h.tools)
	c.feed = slices.Clone(h.feed) // bodies are never written after they are made
	c.st = h.st.clone()
	c.acts = nil
	return &c
}
