package swimcheck

import (
	"fmt"
)

// messageSize is message_size_bounded { message_kind, max_bytes }.
type messageSize struct {
	base
	kind     string
	maxBytes int64
	sent     int
	largest  messageFact
}

func newMessageSize(_ *world, p MessageSizeBounded) checker {
	return &messageSize{kind: p.MessageKind, maxBytes: p.MaxBytes}
}

func (c *messageSize) wants() want { return wantMessages }

func (c *messageSize) onMessage(m messageFact) {
	if m.message != c.kind {
		return
	}
	c.sent++
	if c.sent == 1 || m.bytes > c.largest.bytes {
		c.largest = m
	}
	if m.bytes > c.maxBytes {
		c.res.resolve(Fail, fmt.Sprintf("a %s of %d bytes was sent at %s, above max_bytes %d",
			c.kind, m.bytes, fmtNs(m.timeNs), c.maxBytes), mark{m.line, m.timeNs})
	}
}

func (c *messageSize) finish(*world, int64) {
	if c.sent == 0 {
		c.res.resolve(Inconclusive, fmt.Sprintf("no %s message was sent", c.kind))
		return
	}
	c.res.resolve(Pass, fmt.Sprintf("all %d %s messages were within max_bytes %d (largest %d bytes)",
		c.sent, c.kind, c.maxBytes, c.largest.bytes), mark{c.largest.line, c.largest.timeNs})
}

func (c *messageSize) clone() checker { d := *c; d.res = c.res.clone(); return &d }
