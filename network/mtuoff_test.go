package network

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/detsim/detsim/rng"
)

// mtuOffWorkload runs a mixed workload on a network whose policies leave
// MTUBytes at 0 and renders every outcome and note: script()'s noisy
// traffic, mutations included, then messages from empty to past one
// datagram, by datagram and by stream, under a LossBurst and against a
// send buffer that fills.
func mtuOffWorkload(t *testing.T) []string {
	peers := []string{"a", "b", "c"}
	small := noisy()
	small.SendBufferBytes = 200_000
	n := New(peers, with(mesh(peers, noisy()), "a", "b", small), rng.New(11))
	out := trace(t, n, script(), nil)
	sizes := []int64{0, 1, 99, 1472, 1473, 16_000, 65_507, 65_508, 100_000}
	pairs := [][2]int{{0, 1}, {1, 0}, {1, 2}, {2, 0}}
	for i := range int64(600) {
		at := 10*s + i*3*ms
		if i == 200 {
			n.ApplyMutation(&Mutation{Kind: LossBurst, Links: []Edge{{From: "a", To: "b"}, {From: "b", To: "c"}}, ProbPPM: 300_000, DurationNs: 400 * ms}, at)
		}
		p := pairs[i%int64(len(pairs))]
		bytes := sizes[i%int64(len(sizes))]
		var o Outcome
		var notes []Note
		kind := "datagram"
		if i%5 == 0 {
			kind = "stream"
			o, notes = n.SendReliable(p[0], p[1], bytes, at, i%10 == 0)
		} else {
			o, notes = n.Send(p[0], p[1], bytes, at)
		}
		for _, nt := range notes {
			out = append(out, fmt.Sprintf("%v note %v %v %v", p, nt.Kind, nt.Transition, nt.State))
		}
		out = append(out, fmt.Sprintf("%v %s %d@%d arrived=%v at=%d id=%d dialed=%v reason=%v", p, kind, bytes, at, o.Arrived, o.At, o.ID, o.Dialed, o.Reason))
	}
	return out
}

// TestSend_MTUZeroIsTheModelBeforeMTU_5_7: with mtu_bytes = 0 the network
// answers exactly as it did before the MTU model existed. The digest was
// recorded by this workload on the code before the model (commit
// 92c25f0): every arrival time, drop reason, delivery id and note, with
// messages over 65 507 bytes accepted as one unit and lost at the link's
// own rate.
func TestSend_MTUZeroIsTheModelBeforeMTU_5_7(t *testing.T) {
	lines := mtuOffWorkload(t)
	got := fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(lines, "\n"))))
	const want = "a4d93c040481455a9a6c75898084ec63c2ecd6cbba91625ba4308359c11fc162"
	if got != want {
		t.Errorf("MTU-off workload (%d lines) digest = %s, want %s", len(lines), got, want)
	}
}
