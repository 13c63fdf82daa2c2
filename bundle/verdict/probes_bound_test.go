package verdict

import (
	"testing"

	"github.com/detsim/detsim/scenarios"
)

// TestProbeSpans_ProbesThatNeverSettleStayBounded feeds direct probes that
// are never acked nor timed out, both ways, with x flapping its view of y
// all along: every flap's check waits on them. The spans kept must stay
// bounded by maxUnsettled per pair, not grow with the probes (before the
// bound: 835 spans holding 19 998 pending probes here).
func TestProbeSpans_ProbesThatNeverSettleStayBounded(t *testing.T) {
	s := &stream{}
	s.initial(0, "x", "y")
	tm := sec
	states := []string{"suspect", "alive"}
	for i := range int64(5000) {
		s.probe(tm, "x", "probe_sent", "y", i)
		s.probe(tm+1, "y", "probe_sent", "x", i)
		if i%3 == 0 {
			s.view(tm+2, "x", "y", states[(i/3)%2], 0)
		}
		tm += 1000
	}
	as := []scenarios.Assertion{
		assertion(scenarios.NoFlapWhileProbesOK{Peer: "y", WindowStartNs: int64(0), WindowEndNs: int64(1) << 62}),
		assertion(scenarios.NoDeadWhenProbesOK{Peer: "y", WindowStartNs: int64(0), WindowEndNs: int64(1) << 62}),
	}
	e, vs := judge(t, s, tm, as...)
	for i, c := range e.checkers {
		var sp *probeSpans
		switch k := c.(type) {
		case *noFlap:
			sp = &k.spans
		case *noDead:
			sp = &k.spans
		}
		pending := 0
		for _, x := range sp.spans {
			pending += len(x.pending)
		}
		// Per X: the window span and the open or check spans, which share
		// no probe, hold at most maxUnsettled probes each way.
		if len(sp.spans) > 2*maxUnsettled+2 || pending > 4*maxUnsettled {
			t.Errorf("%s keeps %d spans with %d pending probes after 10 000 unsettled probes", as[i].Kind, len(sp.spans), pending)
		}
		if vs[i].Outcome != Inconclusive {
			t.Errorf("%s: %s (%s); no probe ever succeeded", as[i].Kind, vs[i].Outcome, vs[i].Reason)
		}
	}
}
