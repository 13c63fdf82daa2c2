package verdict

import (
	"testing"

	"github.com/detsim/detsim/kinds/swim/swimcheck"
)

// initial(0, "a", "b", "c") writes these lines.
const (
	lineAA = iota + 1
	lineAB
	lineAC
	lineBA
	lineBB
	lineBC
	lineCA
	lineCB
	lineCC
)

func TestAllAliveAt_10_1(t *testing.T) {
	at5 := swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a", "b", "c")}
	runKindCases(t, "all_alive_at", []kindCase{
		{name: "every view alive passes once time passes at_ns", params: at5, endNs: 20 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				return []int{lineCB}, s.other(10*sec, "tick") // the latest view among distinct pairs
			}},
		{name: "a suspect view at at_ns fails", params: at5, endNs: 20 * sec, want: Fail, inReason: "b's view of c is suspect",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				l := s.view(3*sec, "b", "c", "suspect", 0)
				s.view(7*sec, "b", "c", "alive", 1) // too late
				return []int{l}, 11
			}},
		{name: "a peer with no view fails", params: at5, endNs: 20 * sec, want: Fail, inReason: "2 of 6 views are not alive: c has no view of a",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b") // c never started
				s.view(0, "a", "c", "alive", 0)
				s.view(0, "b", "c", "alive", 0)
				return nil, 0
			}},
		{name: "before the first record nobody has a view", params: swimcheck.AllAliveAt{AtNs: int64(0), Peers: peers("a", "b")}, endNs: 20 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				s.initial(sec, "a", "b")
				return nil, 1
			}},
		{name: "a change undone within the instant was never held", params: at5, endNs: 5 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(5*sec, "b", "c", "suspect", 0)
				return []int{s.view(5*sec, "b", "c", "alive", 1)}, 0
			}},
		{name: "an unnamed peer's view does not matter", params: swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a", "b")}, endNs: 5 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(sec, "c", "a", "dead", 0)
				s.view(sec, "a", "c", "dead", 0)
				return []int{lineBA}, 0
			}},
		{name: "a fresh life forgets its views", params: at5, endNs: 10 * sec, want: Fail, inReason: "c has no view of a",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.mutation(2*sec, "PeerKill", `,"peer":"c"`)
				s.mutation(3*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				s.view(3*sec, "c", "c", "alive", 0)
				return nil, 0
			}},
		{name: "at_ns after the run is inconclusive", params: swimcheck.AllAliveAt{AtNs: 30 * sec, Peers: peers("a", "b", "c")}, endNs: 20 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				return nil, 0
			}},
	})
}

func TestAllAliveThroughout_10_1(t *testing.T) {
	win := swimcheck.AllAliveThroughout{WindowStartNs: 2 * sec, WindowEndNs: 8 * sec, Peers: peers("a", "b", "c")}
	runKindCases(t, "all_alive_throughout", []kindCase{
		{name: "alive at every instant passes once the window is over", params: win, endNs: 20 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(9*sec, "b", "c", "suspect", 0) // after the window
				return nil, 10
			}},
		{name: "a suspicion inside the window fails at its instant", params: win, endNs: 20 * sec, want: Fail, inReason: "at 4s",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				l := s.view(4*sec, "b", "c", "suspect", 0)
				return []int{l}, s.view(5*sec, "b", "c", "alive", 1)
			}},
		{name: "a suspicion carried into the window fails", params: win, endNs: 20 * sec, want: Fail, inReason: "at 2s",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				l := s.view(1*sec, "b", "c", "suspect", 0)
				return []int{l}, s.view(3*sec, "b", "c", "alive", 1)
			}},
		{name: "a suspicion refuted at the window's first instant passes", params: win, endNs: 20 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.view(1*sec, "b", "c", "suspect", 0)
				s.view(2*sec, "b", "c", "alive", 1)
				return nil, 0
			}},
		{name: "the run ending inside the window is inconclusive", params: win, endNs: 6 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				return nil, 0
			}},
		{name: "a violation before a short run's end still fails", params: win, endNs: 6 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				return []int{s.view(5*sec, "a", "b", "dead", 0)}, 0
			}},
	})
}

func TestConvergenceAfter_10_1(t *testing.T) {
	conv := swimcheck.ConvergenceAfter{AfterNs: 5 * sec, WithinNs: 5 * sec, Peers: peers("a", "b", "c")}
	// disputed has b suspect c at 4s; c refutes with incarnation 1 at 6s.
	disputed := func(s *stream) {
		s.initial(0, "a", "b", "c")
		s.view(4*sec, "b", "c", "suspect", 0) // line 10
		s.view(6*sec, "c", "c", "alive", 1)   // line 11
	}
	runKindCases(t, "convergence_after", []kindCase{
		{name: "a view consistent since before after_ns passes", params: conv, endNs: 20 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				return []int{lineCC}, s.other(6*sec, "tick")
			}},
		{name: "converging inside the interval passes at that instant", params: conv, endNs: 20 * sec, want: Pass, inReason: "at 8s",
			build: func(s *stream) ([]int, int) {
				disputed(s)
				s.view(7*sec, "a", "c", "alive", 1)
				l := s.view(8*sec, "b", "c", "alive", 1)
				return []int{l}, s.other(9*sec, "tick")
			}},
		{name: "no consistent instant by the deadline fails", params: conv, endNs: 20 * sec, want: Fail, inReason: "c: a alive/0, b suspect/0, c alive/1",
			build: func(s *stream) ([]int, int) {
				disputed(s)
				return []int{lineAC, 10, 11}, s.other(11*sec, "tick")
			}},
		{name: "converging after the deadline is too late", params: conv, endNs: 20 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				disputed(s)
				s.view(9*sec, "a", "c", "alive", 1)
				s.view(11*sec, "b", "c", "alive", 1)
				return []int{10, 11, 12}, 13
			}},
		{name: "incarnations beyond float precision are told apart", params: swimcheck.ConvergenceAfter{AfterNs: int64(0), WithinNs: sec, Peers: peers("a", "b")},
			endNs: 20 * sec, want: Fail, inReason: "a alive/18446744073709551615, b alive/18446744073709551614",
			build: func(s *stream) ([]int, int) {
				l1 := s.add(0, "a", "swim", `{"type":"state_transition","observer":"a","subject":"a","from":"none","to":"alive","incarnation":18446744073709551615,"reason":"initial"}`)
				s.view(0, "a", "b", "alive", 0)
				s.view(0, "b", "a", "alive", 0)
				l2 := s.add(0, "b", "swim", `{"type":"state_transition","observer":"b","subject":"a","from":"alive","to":"alive","incarnation":18446744073709551614,"reason":"gossip"}`)
				s.view(0, "b", "b", "alive", 0)
				return []int{l1, l2}, s.other(2*sec, "tick")
			}},
		{name: "a run ending before the deadline is inconclusive", params: conv, endNs: 8 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				disputed(s)
				return nil, 0
			}},
	})
}
