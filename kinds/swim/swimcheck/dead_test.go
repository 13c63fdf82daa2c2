package swimcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
)

// deadFeed is a run of three peers for no_dead_when_probes_ok: views,
// direct probes and the engine's mutations, fed to the judge in order.
type deadFeed struct{ feed }

func (f *deadFeed) view(t *testing.T, at int64, obs, subj, to string) {
	f.add(t, at, obs, fmt.Sprintf(`{"type":"state_transition","observer":%q,"subject":%q,"from":"alive","to":%q,"incarnation":0,"reason":"test"}`, obs, subj, to))
}

func (f *deadFeed) probe(t *testing.T, at int64, prober, step, target string, seq int) {
	f.add(t, at, prober, fmt.Sprintf(`{"type":%q,"target":%q,"seq":%d,"mode":"direct"}`, step, target, seq))
}

func (f *deadFeed) probeOK(t *testing.T, at int64, prober, target string, seq int) {
	f.probe(t, at, prober, "probe_sent", target, seq)
	f.probe(t, at+ms, prober, "probe_acked", target, seq)
}

func (f *deadFeed) mutation(t *testing.T, at int64, kind, peer string) {
	t.Helper()
	f.j.Hold(f.now, at-1)
	f.now = at
	f.line++
	rec := hosts.EventRec{Line: f.line, TimeNs: at, KindTag: "engine", Type: "mutation", Event: []byte(fmt.Sprintf(`{"type":"mutation","kind":%q,"peer":%q}`, kind, peer))}
	rec.Read = f.j.Reads(rec.KindTag, rec.Type)
	if err := f.j.Observe(&rec); err != nil {
		t.Fatal(err)
	}
}

const ms, sec = int64(1_000_000), int64(1_000_000_000)

// passText runs build over a three-peer start and returns the verdict of
// no_dead_when_probes_ok on c over [0s, 100s], which must be a Pass.
func passText(t *testing.T, build func(f *deadFeed)) string {
	t.Helper()
	f := &deadFeed{feed{j: newJudge([]hosts.AssertionParams{NoDeadWhenProbesOK{Peer: "c", WindowStartNs: 0, WindowEndNs: 100 * sec}}).(*judge)}}
	for _, o := range []string{"a", "b", "c"} {
		for _, p := range []string{"a", "b", "c"} {
			f.add(t, 0, o, fmt.Sprintf(`{"type":"state_transition","observer":%q,"subject":%q,"from":"none","to":"alive","incarnation":0,"reason":"initial"}`, o, p))
		}
	}
	build(f)
	f.j.Hold(f.now, 200*sec)
	f.j.Finish(200 * sec)
	r := f.j.Results()[0]
	if r.Outcome != Pass {
		t.Fatalf("%s, want Pass: %s", r.Outcome, r.Reason)
	}
	return r.Reason
}

// A member marked dead while probes with it were failing is no violation,
// but it is the symptom the assertion watches (docs/assertions.md): the
// Pass says who marked it dead and when. Before, it said only "no
// violation was found".
func TestNoDead_PassSaysTheDeathsWhileProbesFailed(t *testing.T) {
	got := passText(t, func(f *deadFeed) {
		f.probeOK(t, 1*sec, "a", "c", 1)
		f.probeOK(t, 2*sec, "c", "a", 1)
		f.view(t, 10*sec, "a", "c", "suspect")
		f.probe(t, 11*sec, "a", "probe_sent", "c", 2)
		f.probe(t, 11*sec+500*ms, "a", "probe_timed_out", "c", 2)
		f.view(t, 15*sec, "a", "c", "dead")
		f.view(t, 16*sec, "b", "c", "dead")
	})
	for _, want := range []string{"no violation was found", "c was marked dead 2 times while probes between it and the observer were failing (a at 15s, b at 16s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the Pass does not say %q:\n%s", want, got)
		}
	}
}

// A run where nobody died says so; a death after the peer was killed is
// told apart from one while probes failed.
func TestNoDead_PassSaysNoneDiedOrTheKill(t *testing.T) {
	quiet := func(f *deadFeed) {
		f.probeOK(t, 1*sec, "a", "c", 1)
		f.probeOK(t, 2*sec, "c", "a", 1)
		f.view(t, 10*sec, "a", "c", "suspect")
		f.view(t, 12*sec, "a", "c", "alive")
	}
	if got, want := passText(t, quiet), "; no observer marked c dead while probes were failing"; !strings.HasSuffix(got, want) {
		t.Errorf("nobody died: the Pass does not end %q:\n%s", want, got)
	}
	killed := func(f *deadFeed) {
		quiet(f)
		f.mutation(t, 20*sec, "PeerKill", "c")
		f.view(t, 25*sec, "a", "c", "dead")
	}
	if got, want := passText(t, killed), "; no observer marked c dead while probes were failing (marked dead once after it was killed: a at 25s)"; !strings.HasSuffix(got, want) {
		t.Errorf("killed: the Pass does not end %q:\n%s", want, got)
	}
}
