package swim

import (
	"strings"
	"testing"
)

func TestDescribeWire_EveryKind(t *testing.T) {
	cases := []struct {
		m    Message
		want string
	}{
		{Message{Kind: Ping, From: "a", Seq: 12, Target: "b"}, "ping #12"},
		{Message{Kind: Ack, From: "a", Seq: 7}, "ack #7"},
		{Message{Kind: PingReq, From: "a", Seq: 3, Target: "c"}, "ping_req #3 → c"},
		{Message{Kind: IndirectAck, From: "a", Seq: 3, Target: "c", Nack: true}, "indirect_ack #3 → c nack"},
		{Message{Kind: IndirectAck, From: "a", Seq: 3, Target: "c"}, "indirect_ack #3 → c"},
		{Message{Kind: JoinRequest, From: "a", Incarnation: 2}, "join_request"},
		{Message{Kind: JoinResponse, From: "a", Members: []Update{{Member: "a", State: Alive}}}, "join_response"},
	}
	for _, c := range cases {
		b, err := Encode(&c.m)
		if err != nil {
			t.Fatal(err)
		}
		if got := DescribeWire(b); got != c.want {
			t.Errorf("%s: got %q, want %q", c.m.Kind, got, c.want)
		}
		for i := range b { // every prefix: never a panic
			DescribeWire(b[:i])
		}
	}
	if DescribeWire([]byte{9, 1, 0}) != "" || DescribeWire(nil) != "" {
		t.Error("bytes of another version described")
	}
}

// TestIntrospection_AccuserQueueTimers: with c cut off, a suspects c;
// the accuser, the queued news about c and the suspicion timer say so.
func TestIntrospection_AccuserQueueTimers(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.run(3 * s)
	c.isolate("c", true)
	a := c.nodes["a"]
	if !c.runUntil(10*s, func() bool { st, _, _ := a.View("c"); return st == Suspect }) {
		t.Fatal("a never suspected c")
	}
	by, ok := a.Accuser("c")
	if !ok || by == "" {
		t.Fatalf("Accuser(c) = %q, %v", by, ok)
	}
	if _, ok := a.Accuser("b"); ok {
		t.Error("an alive member has an accuser")
	}
	q, total := a.BroadcastQueue(-1)
	if depth, _ := a.QueueDepth(); total != depth || len(q) != total {
		t.Fatalf("queue %d of %d, depth %d", len(q), total, depth)
	}
	found := false
	for _, u := range q {
		if u.Member == "c" && u.State == Suspect && u.From == by && u.Bytes > 0 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no suspect update about c by %s queued: %+v", by, q)
	}
	if one, _ := a.BroadcastQueue(1); len(one) != min(1, total) {
		t.Fatal("limit not applied")
	}
	idx, _ := a.lookup("c")
	susp := a.suspicion(&a.members[idx])
	if got := a.DescribeTimer(suspicionToken(idx, susp.gen)); got != "suspicion of c" {
		t.Errorf("suspicion timer: %q", got)
	}
	if got := a.DescribeTimer(suspicionToken(idx, susp.gen+1)); !strings.HasSuffix(got, "(stale)") {
		t.Errorf("stale suspicion timer: %q", got)
	}
	if got := a.DescribeTimer(token(timerProbeTimeout, 999999)); got != "probe timeout #999999 (stale)" {
		t.Errorf("stale probe timer: %q", got)
	}
	if got := a.DescribeTimer(0xff << 56); got != "unknown timer" {
		t.Errorf("unknown: %q", got)
	}
}
