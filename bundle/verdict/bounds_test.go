package verdict

import (
	"math"
	"testing"

	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/scenarios"
)

func TestSelfIncarnationBounded_10_1(t *testing.T) {
	bound := swimcheck.SelfIncarnationBounded{Peer: "a", MaxValue: int64(3)}
	runKindCases(t, "self_incarnation_bounded", []kindCase{
		{name: "a bump above the bound fails at that bump", params: bound, endNs: 100 * sec, want: Fail, inReason: "to 4",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b")
				for i := range int64(3) {
					s.bump((i+1)*sec, "a", i, i+1)
				}
				l := s.bump(5*sec, "a", 3, 4)
				return []int{l}, l
			}},
		{name: "bumps up to the bound pass, citing the last", params: bound, endNs: 100 * sec, want: Pass, inReason: "reached 3",
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b")
				s.bump(1*sec, "a", 0, 1)
				l := s.bump(2*sec, "a", 1, 3)
				s.bump(3*sec, "b", 10, 11) // another peer's counter
				return []int{l}, 0
			}},
		{name: "a peer that ran without bumping passes", params: bound, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b")
				return nil, 0
			}},
		{name: "an incarnation beyond int64 is compared exactly", params: swimcheck.SelfIncarnationBounded{Peer: "a", MaxValue: int64(math.MaxInt64)},
			endNs: 100 * sec, want: Fail, inReason: "to 18446744073709551615",
			build: func(s *stream) ([]int, int) {
				l := s.add(sec, "a", "swim", `{"type":"self_incarnation_bump","old":9223372036854775807,"new":18446744073709551615,"cause":"refute_suspect"}`)
				return []int{l}, l
			}},
		{name: "a peer that never ran is inconclusive", params: bound, endNs: 100 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "b", "c")
				return nil, 0
			}},
	})
}

func TestMessageSizeBounded_10_1(t *testing.T) {
	bound := swimcheck.MessageSizeBounded{MessageKind: "ping", MaxBytes: int64(100)}
	runKindCases(t, "message_size_bounded", []kindCase{
		{name: "a ping over the bound fails at that send", params: bound, endNs: 100 * sec, want: Fail, inReason: "101 bytes",
			build: func(s *stream) ([]int, int) {
				s.message(1*sec, "a", "message_sent", "ping", 50)
				s.message(2*sec, "a", "message_sent", "ack", 500)
				l := s.message(3*sec, "b", "message_sent", "ping", 101)
				return []int{l}, l
			}},
		{name: "pings within the bound pass, citing the largest", params: bound, endNs: 100 * sec, want: Pass, inReason: "largest 100 bytes",
			build: func(s *stream) ([]int, int) {
				s.message(1*sec, "a", "message_sent", "ping", 50)
				l := s.message(2*sec, "a", "message_sent", "ping", 100)
				s.message(3*sec, "a", "message_sent", "ping", 100)
				s.message(4*sec, "a", "message_sent", "ack", 500)
				s.message(5*sec, "b", "message_received", "ping", 500) // receives are not sends
				return []int{l}, 0
			}},
		{name: "no ping sent is inconclusive", params: bound, endNs: 100 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.message(1*sec, "a", "message_sent", "ack", 500)
				return nil, 0
			}},
	})
}

func TestEventCount_10_1(t *testing.T) {
	bound := scenarios.EventCount{EventType: "drop_on_send", Max: int64(2)}
	runKindCases(t, "event_count", []kindCase{
		{name: "one more than max fails at that record", params: bound, endNs: 100 * sec, want: Fail, inReason: "3 times",
			build: func(s *stream) ([]int, int) {
				first := s.other(1*sec, "drop_on_send")
				s.other(2*sec, "dial_start")
				s.other(3*sec, "drop_on_send")
				third := s.other(4*sec, "drop_on_send")
				s.other(5*sec, "drop_on_send")
				return []int{first, third}, third
			}},
		{name: "max occurrences pass", params: bound, endNs: 100 * sec, want: Pass, inReason: "2 times",
			build: func(s *stream) ([]int, int) {
				s.other(1*sec, "drop_on_send")
				s.other(2*sec, "drop_on_delivery")
				s.other(3*sec, "drop_on_send")
				return nil, 0
			}},
		{name: "no occurrence passes", params: bound, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) { return nil, 0 }},
	})
}

func TestEventRate_10_1(t *testing.T) {
	bound := scenarios.EventRate{EventType: "drop_on_send", WindowNs: sec, MaxPerWindow: int64(2)}
	runKindCases(t, "event_rate", []kindCase{
		{name: "three within one window fails", params: bound, endNs: 100 * sec, want: Fail,
			build: func(s *stream) ([]int, int) {
				s.other(0, "drop_on_send")
				first := s.other(1*sec, "drop_on_send")
				s.other(1500*ms, "drop_on_send")
				last := s.other(1999*ms, "drop_on_send")
				return []int{first, last}, last
			}},
		{name: "records exactly one window apart never share it", params: bound, endNs: 100 * sec, want: Pass, inReason: "at most 2",
			build: func(s *stream) ([]int, int) {
				for i := range int64(6) {
					s.other(i*500*ms, "drop_on_send")
				}
				return nil, 0
			}},
		{name: "other types do not count", params: bound, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.other(0, "drop_on_send")
				s.other(0, "drop_on_delivery")
				s.other(0, "drop_on_delivery")
				return nil, 0
			}},
	})
}

func TestDeadPeerResurrectsWithin_10_1(t *testing.T) {
	within := swimcheck.DeadPeerResurrectsWithin{Peer: "c", AfterNs: 10 * sec, WithinNs: 5 * sec}
	// killed has c killed at 5s and marked dead by a and b.
	killed := func(s *stream) (deadA, deadB int) {
		s.initial(0, "a", "b", "c")
		s.mutation(5*sec, "PeerKill", `,"peer":"c"`)
		s.view(7*sec, "a", "c", "suspect", 0)
		s.view(7*sec, "b", "c", "suspect", 0)
		return s.view(9*sec, "a", "c", "dead", 0), s.view(9*sec, "b", "c", "dead", 0)
	}
	runKindCases(t, "dead_peer_resurrects_within", []kindCase{
		{name: "marked alive by every live peer in time passes", params: within, endNs: 100 * sec, want: Pass, inReason: "at 14s",
			build: func(s *stream) ([]int, int) {
				killed(s)
				r := s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				s.view(12*sec, "c", "c", "alive", 0)
				s.view(13*sec, "a", "c", "alive", 1)
				l := s.view(14*sec, "b", "c", "alive", 1)
				return []int{r, l}, s.other(16*sec, "tick")
			}},
		{name: "a peer still holding it dead at the deadline fails", params: within, endNs: 100 * sec, want: Fail, inReason: "b's view of c is dead",
			build: func(s *stream) ([]int, int) {
				_, deadB := killed(s)
				r := s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				s.view(13*sec, "a", "c", "alive", 1)
				late := s.view(18*sec, "b", "c", "alive", 1) // after the deadline
				return []int{deadB, r}, late
			}},
		{name: "a resurrection before after_ns does not fire", params: within, endNs: 100 * sec, want: Inconclusive, inReason: "no mutation",
			build: func(s *stream) ([]int, int) {
				killed(s)
				s.mutation(9*sec, "PeerResurrect", `,"peer":"c","preserve_state":true`)
				return nil, 0
			}},
		{name: "the run ending before the deadline is inconclusive", params: within, endNs: 15 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				killed(s)
				r := s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				s.view(13*sec, "a", "c", "alive", 1)
				return []int{r}, 0
			}},
		{name: "a heal that ends its partition fires", params: within, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.mutation(5*sec, "Partition", `,"peers_a":["c"],"peers_b":["a","b"]`)
				s.view(9*sec, "a", "c", "dead", 0)
				s.view(9*sec, "b", "c", "dead", 0)
				h := s.mutation(11*sec, "Heal", "")
				s.view(12*sec, "a", "c", "alive", 1)
				l := s.view(13*sec, "b", "c", "alive", 1)
				return []int{h, l}, 0
			}},
		{name: "a heal of a partition that did not cut it does not fire", params: within, endNs: 100 * sec, want: Inconclusive,
			build: func(s *stream) ([]int, int) {
				s.initial(0, "a", "b", "c")
				s.mutation(5*sec, "Partition", `,"peers_a":["a"],"peers_b":["b"]`)
				s.mutation(11*sec, "Heal", "")
				return nil, 0
			}},
		{name: "a killed observer's stale view does not count", params: within, endNs: 100 * sec, want: Pass,
			build: func(s *stream) ([]int, int) {
				killed(s)
				s.mutation(11*sec, "PeerKill", `,"peer":"b"`)
				r := s.mutation(12*sec, "PeerResurrect", `,"peer":"c","preserve_state":false`)
				l := s.view(13*sec, "a", "c", "alive", 1)
				return []int{r, l}, 0
			}},
	})
}
