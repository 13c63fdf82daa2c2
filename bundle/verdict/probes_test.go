package verdict

import (
	"testing"

	"github.com/detsim/detsim/kinds/swim/swimcheck"
)

const ms = int64(1_000_000)

// flapWhileAcked plants the gossip-flap bug: a suspects c, takes it back,
// and suspects it again while every direct probe both ways is acked. It
// returns the three transition lines and the last ack each way.
func flapWhileAcked(s *stream) (t1, t2, t3, ackAC, ackCA int) {
	s.initial(0, "a", "b", "c")
	t1 = s.view(10*sec, "a", "c", "suspect", 0)
	s.probeOK(10*sec+500*ms, "a", "c", 1)
	ackCA = s.probeOK(11*sec, "c", "a", 7)
	t2 = s.view(12*sec, "a", "c", "alive", 1)
	ackAC = s.probeOK(13*sec, "a", "c", 2)
	t3 = s.view(14*sec, "a", "c", "suspect", 1)
	return
}

func TestNoFlapWhileProbesOK_10_1(t *testing.T) {
	win := swimcheck.NoFlapWhileProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 100 * sec}
	runKindCases(t, "no_flap_while_probes_ok", []kindCase{
		{name: "a flap while probes are acked both ways fails at its third transition", params: win, endNs: 200 * sec, want: Fail,
			inReason: "a's view of c went suspect→alive→suspect at 10s, 12s, 14s",
			build: func(s *stream) ([]int, int) {
				t1, t2, t3, ackAC, ackCA := flapWhileAcked(s)
				return []int{t1, ackCA, t2, ackAC, t3}, t3
			}},
		{name: "a probe pending at the third transition decides when it is acked", params: win, endNs: 200 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				t1 := s.view(10*sec, "a", "c", "suspect", 0)
				ackCA := s.probeOK(11*sec, "c", "a", 7)
				t2 := s.view(12*sec, "a", "c", "alive", 1)
				s.probe(13*sec, "a", "probe_sent", "c", 2)
				t3 := s.view(14*sec, "a", "c", "suspect", 1)
				ack := s.probe(14*sec+ms, "a", "probe_acked", "c", 2)
				return []int{t1, ackCA, t2, t3, ack}, ack
			}},
		{name: "a flap while a direct probe timed out passes", params: win, endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(10*sec, "a", "c", "suspect", 0)
				s.probe(10*sec+500*ms, "a", "probe_sent", "c", 1)
				s.probe(11*sec, "a", "probe_timed_out", "c", 1)
				s.probeOK(11*sec, "c", "a", 7)
				s.view(12*sec, "a", "c", "alive", 1)
				s.probeOK(13*sec, "a", "c", 2)
				s.view(14*sec, "a", "c", "suspect", 1)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "a direct ack after the direct timeout does not rescue the probe", params: win, endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(10*sec, "a", "c", "suspect", 0)
				s.probeOK(10*sec+500*ms, "c", "a", 7)
				s.probe(11*sec, "a", "probe_sent", "c", 1)
				s.probe(11*sec+500*ms, "a", "probe_timed_out", "c", 1)
				s.probe(11*sec+700*ms, "a", "probe_acked", "c", 1) // late: kinds/swim/swim still records it
				s.view(12*sec, "a", "c", "alive", 1)
				s.view(14*sec, "a", "c", "suspect", 1)
				s.probeOK(20*sec, "a", "c", 2) // the precondition fires later in the window
				return nil, s.other(101*sec, "tick")
			}},
		{name: "a pending probe that times out clears the flap", params: swimcheck.NoFlapWhileProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 14 * sec},
			endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(10*sec, "a", "c", "suspect", 0)
				s.probeOK(10*sec+500*ms, "a", "c", 1)
				s.probeOK(11*sec, "c", "a", 7)
				s.view(12*sec, "a", "c", "alive", 1)
				s.probe(13*sec, "a", "probe_sent", "c", 2)
				s.view(14*sec, "a", "c", "suspect", 1)
				return nil, s.probe(15*sec, "a", "probe_timed_out", "c", 2)
			}},
		{name: "indirect probes are not direct probes", params: win, endNs: 200 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(10*sec, "a", "c", "suspect", 0)
				s.probeOK(10*sec+500*ms, "a", "c", 1)
				s.probeMode(11*sec, "c", "probe_sent", "a", 7, "indirect")
				s.probeMode(11*sec+ms, "c", "probe_acked", "a", 7, "indirect")
				s.view(12*sec, "a", "c", "alive", 1)
				s.view(14*sec, "a", "c", "suspect", 1)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "a flap that starts before the window is not judged", params: swimcheck.NoFlapWhileProbesOK{Peer: "c", WindowStartNs: 11 * sec, WindowEndNs: 100 * sec},
			endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				flapWhileAcked(s)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "a probe still pending at the end is ignored", params: win, endNs: 20 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				t1, t2, _, ackAC, ackCA := flapWhileAcked(s)
				s.lines = s.lines[:len(s.lines)-1] // drop t3 to send one more probe first
				s.probe(13*sec+500*ms, "c", "probe_sent", "a", 8)
				t3 := s.view(14*sec, "a", "c", "suspect", 1)
				return []int{t1, ackCA, t2, ackAC, t3}, 0
			}},
		{name: "killing the peer mid-flap is no flap while probes succeed", params: win, endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				_, _, _, _, _ = flapWhileAcked(s)
				s.lines = s.lines[:len(s.lines)-1]
				s.mutation(13*sec+500*ms, "PeerKill", `,"peer":"c"`)
				s.view(14*sec, "a", "c", "suspect", 1)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "a peer nobody probed is inconclusive", params: win, endNs: 200 * sec, want: Inconclusive, inReason: "precondition never fired",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				return nil, 0
			}},
	})
}

func TestNoDeadWhenProbesOK_10_1(t *testing.T) {
	win := swimcheck.NoDeadWhenProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 100 * sec}
	runKindCases(t, "no_dead_when_probes_ok", []kindCase{
		{name: "dead after a suspicion while probes are acked fails", params: win, endNs: 200 * sec, want: Fail,
			inReason: "a marked c dead at 15s while every direct probe between them since 10s was acked",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				sus := s.view(10*sec, "a", "c", "suspect", 0)
				ackAC := s.probeOK(11*sec, "a", "c", 1)
				ackCA := s.probeOK(12*sec, "c", "a", 1)
				d := s.view(15*sec, "a", "c", "dead", 0)
				return []int{sus, ackAC, ackCA, d}, d
			}},
		{name: "dead straight from alive is judged from the alive view", params: win, endNs: 200 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				ackAC := s.probeOK(1*sec, "a", "c", 1)
				ackCA := s.probeOK(2*sec, "c", "a", 1)
				d := s.view(3*sec, "a", "c", "dead", 0)
				return []int{lineAC, ackAC, ackCA, d}, d
			}},
		{name: "dead after a timed-out probe passes", params: win, endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.probeOK(1*sec, "a", "c", 1)
				s.probeOK(2*sec, "c", "a", 1)
				s.view(10*sec, "a", "c", "suspect", 0)
				s.probe(11*sec, "a", "probe_sent", "c", 2)
				s.probe(11*sec+500*ms, "a", "probe_timed_out", "c", 2)
				s.probeOK(12*sec, "c", "a", 2)
				s.view(15*sec, "a", "c", "dead", 0)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "a death before the window is not judged", params: swimcheck.NoDeadWhenProbesOK{Peer: "c", WindowStartNs: 20 * sec, WindowEndNs: 100 * sec},
			endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(10*sec, "a", "c", "suspect", 0)
				s.probeOK(11*sec, "a", "c", 1)
				s.probeOK(12*sec, "c", "a", 1)
				s.view(15*sec, "a", "c", "dead", 0)
				s.view(16*sec, "a", "c", "alive", 1)
				s.probeOK(21*sec, "a", "c", 2)
				s.probeOK(22*sec, "c", "a", 2)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "dead after the peer was killed passes", params: win, endNs: 200 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.probeOK(1*sec, "a", "c", 1)
				s.probeOK(2*sec, "c", "a", 1)
				s.mutation(3*sec, "PeerKill", `,"peer":"c"`)
				s.view(4*sec, "a", "c", "dead", 0)
				return nil, s.other(101*sec, "tick")
			}},
		{name: "never probed is inconclusive", params: win, endNs: 200 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(15*sec, "a", "c", "dead", 0)
				return nil, s.other(101*sec, "tick")
			}},
	})
}
