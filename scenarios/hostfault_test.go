package scenarios

import (
	"testing"

	"github.com/detsim/detsim/network"
)

// TestParse_HostFaults_Issue14: PeerPause { peer, duration_ns } and the
// per-peer recv_cost_ns and recv_buffer_bytes are read, checked and named
// by field; a PeerPause of a peer that is not running is rejected like a
// PeerKill of one, and overlapping pauses are accepted (they merge).
func TestParse_HostFaults_Issue14(t *testing.T) {
	pause := func(at, d int, peer string) string {
		return "[[mutations]]\nat_ns = " + itoa(at) + "\nkind = \"PeerPause\"\npeer = \"" + peer + "\"\nduration_ns = " + itoa(d) + "\n"
	}
	kill := "[[mutations]]\nat_ns = 5\nkind = \"PeerKill\"\npeer = \"a\"\n"
	slow := with("id = \"b\"\nkind = \"echo\"\n", "id = \"b\"\nkind = \"echo\"\nrecv_cost_ns = 7\nrecv_buffer_bytes = 70000\n")
	s, err := Parse("t.toml", []byte(slow+pause(10, 100, "a")+pause(50, 100, "a")), testRegistry(), noFiles)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Peers[1]; p.ID != "b" || p.RecvCostNs != 7 || p.RecvBufferBytes != 70000 {
		t.Errorf("peer b: %+v", p)
	}
	if p := s.Peers[0]; p.RecvCostNs != 0 || p.RecvBufferBytes != 0 {
		t.Errorf("peer a keeps the defaults (0 = none, 0 = DefaultRecvBufferBytes): %+v", p)
	}
	if m := s.Mutations[0]; m.Kind != network.PeerPause || m.Peer != "a" || m.DurationNs != 100 || m.At != 10 {
		t.Errorf("mutation: %+v", m)
	}
	bad := []struct {
		name, src string
		want      []string
	}{
		{"pause of a killed peer", valid + kill + pause(10, 5, "a"),
			[]string{`t.toml: mutations[1].peer: PeerPause of "a" at 10 ns, which is not running then (killed by mutations[0] at 5 ns)`}},
		{"pause without duration", valid + "[[mutations]]\nat_ns = 1\nkind = \"PeerPause\"\npeer = \"a\"\n",
			[]string{`t.toml: mutations[0].duration_ns: missing (required)`}},
		{"pause of zero", valid + pause(1, 0, "a"),
			[]string{`t.toml: mutations[0].duration_ns: must be greater than 0, got 0`}},
		{"pause of an undeclared peer", valid + pause(1, 5, "z"),
			[]string{`t.toml: mutations[0].peer: undeclared peer "z"`}},
		{"negative recv cost", with("id = \"b\"\nkind = \"echo\"\n", "id = \"b\"\nkind = \"echo\"\nrecv_cost_ns = -1\n"),
			[]string{`t.toml: peers[b].recv_cost_ns: must not be negative, got -1`}},
		{"recv cost of the wrong type", with("id = \"b\"\nkind = \"echo\"\n", "id = \"b\"\nkind = \"echo\"\nrecv_cost_ns = \"1ms\"\n"),
			[]string{`t.toml: peers[b].recv_cost_ns: must be an integer, got string "1ms"`}},
		{"recv buffer below one datagram", with("id = \"b\"\nkind = \"echo\"\n", "id = \"b\"\nkind = \"echo\"\nrecv_buffer_bytes = 10\n"),
			[]string{`t.toml: peers[b].recv_buffer_bytes: must be at least 65507 bytes (one largest UDP datagram), got 10`}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) { wantParseErrs(t, c.src, c.want...) })
	}
}
