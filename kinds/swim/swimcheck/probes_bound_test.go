package swimcheck

import (
	"fmt"
	"testing"

	"github.com/detsim/detsim/hosts"
)

// feed hands the judge records in order, numbering their lines.
type feed struct {
	j    *judge
	line int
	now  int64
}

func (f *feed) add(t testing.TB, at int64, host, event string) {
	t.Helper()
	if at > f.now {
		f.j.Hold(f.now, at-1)
		f.now = at
	}
	f.line++
	var typ struct{ Type string }
	fmt.Sscanf(event, `{"type":%q`, &typ.Type)
	rec := hosts.EventRec{Line: f.line, TimeNs: at, HostID: host, KindTag: Tag, Type: typ.Type, Event: []byte(event)}
	rec.Read = f.j.Reads(rec.KindTag, rec.Type) // as the evaluator hands it
	if err := f.j.Observe(&rec); err != nil {
		t.Fatalf("line %d %s: %v", f.line, event, err)
	}
}

// TestProbeSpans_ProbesThatNeverSettleStayBounded feeds direct probes that
// are never acked nor timed out, both ways, with x flapping its view of y
// all along: every flap's check waits on them. The spans kept must stay
// bounded by maxUnsettled per pair, not grow with the probes (before the
// bound: 835 spans holding 19 998 pending probes here).
func TestProbeSpans_ProbesThatNeverSettleStayBounded(t *testing.T) {
	params := []hosts.AssertionParams{
		NoFlapWhileProbesOK{Peer: "y", WindowStartNs: 0, WindowEndNs: 1 << 62},
		NoDeadWhenProbesOK{Peer: "y", WindowStartNs: 0, WindowEndNs: 1 << 62},
	}
	f := &feed{j: newJudge(params).(*judge)}
	for _, o := range []string{"x", "y"} {
		for _, p := range []string{"x", "y"} {
			f.add(t, 0, o, fmt.Sprintf(`{"type":"state_transition","observer":%q,"subject":%q,"from":"none","to":"alive","incarnation":0,"reason":"initial"}`, o, p))
		}
	}
	tm := int64(1_000_000_000)
	states := []string{"suspect", "alive"}
	for i := range int64(5000) {
		f.add(t, tm, "x", fmt.Sprintf(`{"type":"probe_sent","target":"y","seq":%d,"mode":"direct"}`, i))
		f.add(t, tm+1, "y", fmt.Sprintf(`{"type":"probe_sent","target":"x","seq":%d,"mode":"direct"}`, i))
		if i%3 == 0 {
			f.add(t, tm+2, "x", fmt.Sprintf(`{"type":"state_transition","observer":"x","subject":"y","from":"alive","to":%q,"incarnation":0,"reason":"test"}`, states[(i/3)%2]))
		}
		tm += 1000
	}
	f.j.Hold(f.now, tm)
	f.j.Finish(tm)
	for i, c := range f.j.checkers {
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
			t.Errorf("%s keeps %d spans with %d pending probes after 10 000 unsettled probes", params[i].Kind(), len(sp.spans), pending)
		}
		if r := f.j.Results()[i]; r.Outcome != Inconclusive {
			t.Errorf("%s: %s (%s); no probe ever succeeded", params[i].Kind(), r.Outcome, r.Reason)
		}
	}
}
