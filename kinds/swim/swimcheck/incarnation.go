package swimcheck

import (
	"fmt"

	"github.com/detsim/detsim/hosts"
)

// selfIncarnation is self_incarnation_bounded { peer, max_value }.
type selfIncarnation struct {
	base
	peer     string
	maxValue int64 // ≥ 0
	ran      bool  // the peer recorded at least one event
	lastBump mark
	highest  uint64
}

func newSelfIncarnation(_ *world, p SelfIncarnationBounded) checker {
	return &selfIncarnation{peer: p.Peer, maxValue: p.MaxValue}
}

func (c *selfIncarnation) wants() want { return wantRecords | wantBumps }

func (c *selfIncarnation) onRecord(_ *world, rec *hosts.EventRec) {
	c.ran = c.ran || rec.HostID == c.peer
}

func (c *selfIncarnation) onBump(b bumpFact) {
	if b.host != c.peer {
		return
	}
	c.lastBump = mark{b.line, b.timeNs}
	c.highest = max(c.highest, b.newInc)
	if b.newInc > uint64(c.maxValue) { // max_value ≥ 0
		c.res.resolve(Fail, fmt.Sprintf("%s bumped its incarnation to %d at %s, above max_value %d",
			c.peer, b.newInc, fmtNs(b.timeNs), c.maxValue), c.lastBump)
	}
}

func (c *selfIncarnation) finish(*world, int64) {
	switch {
	case !c.ran:
		c.res.resolve(Inconclusive, fmt.Sprintf("%s recorded no event: it never ran", c.peer))
	case c.lastBump.line == 0:
		c.res.resolve(Pass, fmt.Sprintf("%s never bumped its incarnation", c.peer))
	default:
		c.res.resolve(Pass, fmt.Sprintf("%s's incarnation reached %d, within max_value %d", c.peer, c.highest, c.maxValue), c.lastBump)
	}
}

func (c *selfIncarnation) clone() checker { d := *c; d.res = c.res.clone(); return &d }
