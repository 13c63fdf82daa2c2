package verdict

import (
	"reflect"
	"testing"

	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/scenarios"
)

// A PeerResurrect of a peer that was running is not a resurrection: the
// scenario loader rejects it, but a bundle written by anything may hold
// one, and the verdict must not Pass on it (issue 9 §3).
func TestDeadPeerResurrectsWithin_PeerThatNeverDiedIsInconclusive(t *testing.T) {
	within := swimcheck.DeadPeerResurrectsWithin{Peer: "c", AfterNs: 10 * sec, WithinNs: 5 * sec}
	runKindCases(t, "dead_peer_resurrects_within", []kindCase{
		{name: "a fresh-life resurrect of a running peer", params: within, endNs: 100 * sec, want: Inconclusive, inReason: "never died",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				r := s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				s.view(13*sec, "a", "c", "alive", 1) // everyone holds c alive: the old code passed here
				s.other(20*sec, "tick")
				return []int{r}, 0
			}},
		{name: "a state-preserving resurrect of a running peer", params: within, endNs: 100 * sec, want: Inconclusive, inReason: "never died",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				r := s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":true`)
				s.other(20*sec, "tick")
				return []int{r}, 0
			}},
		{name: "a resurrect after a resurrect is a no-op; the first one fired", params: within, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.mutation(5*sec, "PeerKill", `,"peer":"c"`)
				s.view(9*sec, "a", "c", "dead", 0)
				s.view(9*sec, "b", "c", "dead", 0)
				r := s.mutation(11*sec, "PeerResurrect", `,"peer":"c","preserve_state":true`)
				s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":true`)
				s.view(13*sec, "a", "c", "alive", 1)
				l := s.view(13*sec, "b", "c", "alive", 1)
				return []int{r, l}, s.other(14*sec, "tick")
			}},
		{name: "a peer declared down that starts at the resurrect did not run, so it fires", params: within, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b")
				r := s.mutation(11*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				s.initial(11*sec, "c")
				s.view(12*sec, "a", "c", "alive", 0)
				l := s.view(12*sec, "b", "c", "alive", 0)
				return []int{r, l}, s.other(13*sec, "tick")
			}},
	})
}

// A PeerResurrect of a running peer must not erase the views it holds:
// they are still its views.
func TestPeerResurrect_OfARunningPeerKeepsItsViews(t *testing.T) {
	s := &stream{}
	s.initial(0, "a", "b", "c")
	s.mutation(5*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
	_, vs := judge(t, s, 20*sec, assertion(swimcheck.AllAliveAt{AtNs: 10 * sec, Peers: peers("a", "b", "c")}))
	if vs[0].Outcome != Pass {
		t.Fatalf("all_alive_at after a no-op resurrect: %s (%s); c's views were erased", vs[0].Outcome, vs[0].Reason)
	}
}

// A PeerKill of a peer already killed changes nothing: every verdict is
// the one the same stream gets with that record replaced by one no
// assertion reads.
func TestPeerKill_OfAPeerAlreadyKilledChangesNoVerdict(t *testing.T) {
	as := []scenarios.Assertion{
		assertion(swimcheck.NoFlapWhileProbesOK{Peer: "y", WindowStartNs: int64(0), WindowEndNs: 30 * sec}),
		assertion(swimcheck.NoDeadWhenProbesOK{Peer: "y", WindowStartNs: int64(0), WindowEndNs: 30 * sec}),
		assertion(swimcheck.DeadPeerResurrectsWithin{Peer: "y", AfterNs: int64(0), WithinNs: 5 * sec}),
		assertion(swimcheck.AllAliveAt{AtNs: 25 * sec, Peers: peers("x", "y", "z")}),
	}
	build := func(second func(s *stream)) *stream {
		s := &stream{}
		s.initial(0, "x", "y", "z")
		s.mutation(1*sec, "PeerKill", `,"peer":"y"`)
		// A writer that kept y's probes going after the kill: the records
		// say probes succeeded both ways around x's flap of y.
		s.view(2*sec, "x", "y", "suspect", 0)
		s.probeOK(3*sec, "x", "y", 1)
		s.probeOK(3*sec+sec/10, "y", "x", 1)
		second(s) // at 4s, inside the span
		s.view(5*sec, "x", "y", "alive", 1)
		s.probeOK(6*sec, "x", "y", 2)
		s.probeOK(6*sec+sec/10, "y", "x", 2)
		s.view(7*sec, "x", "y", "suspect", 1)
		s.mutation(10*sec, "PeerResurrect", `,"peer":"y","preserve_state":true`)
		s.view(11*sec, "x", "y", "alive", 2)
		s.view(11*sec, "z", "y", "alive", 2)
		return s
	}
	twice := build(func(s *stream) { s.mutation(4*sec, "PeerKill", `,"peer":"y"`) })
	once := build(func(s *stream) { s.other(4*sec, "tick") })
	_, got := judge(t, twice, 40*sec, as...)
	_, want := judge(t, once, 40*sec, as...)
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s: with the repeated kill %s (%s), without %s (%s)", got[i].Kind, got[i].Outcome, got[i].Reason, want[i].Outcome, want[i].Reason)
			}
		}
	}
}
