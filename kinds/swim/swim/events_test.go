package swim

import (
	"encoding/json"
	"testing"
)

func TestEvents_JSONShape(t *testing.T) {
	cases := []struct {
		ev   Event
		want string
	}{
		{&StateTransition{Observer: "a", Subject: "b", From: stateNone, To: Alive, Incarnation: 0, Reason: ReasonInitial},
			`{"type":"state_transition","observer":"a","subject":"b","from":"none","to":"alive","incarnation":0,"reason":"initial"}`},
		{&StateTransition{Observer: "a", Subject: "b", From: Suspect, To: Dead, Incarnation: 18446744073709551615, Reason: ReasonSuspicionTimeout},
			`{"type":"state_transition","observer":"a","subject":"b","from":"suspect","to":"dead","incarnation":18446744073709551615,"reason":"suspicion_timeout"}`},
		{&MessageSent{Peer: "b", Message: PingReq, Bytes: 123, Updates: 4, Sender: "a", ID: 7, Seq: 9},
			`{"type":"message_sent","peer":"b","message":"ping_req","bytes":123,"updates":4,"id":"a#7","seq":9}`},
		{&MessageReceived{Peer: "a", Message: Ack, Bytes: 12, Updates: 0, Sender: "a", ID: 18446744073709551615, Seq: 3},
			`{"type":"message_received","peer":"a","message":"ack","bytes":12,"updates":0,"id":"a#18446744073709551615","seq":3}`},
		{&MessageReceived{Peer: "a", Message: JoinResponse, Bytes: 12, Sender: "a"}, // no id known (a live receive), no seq (a join kind)
			`{"type":"message_received","peer":"a","message":"join_response","bytes":12,"updates":0}`},
		{&MessageSent{Peer: "b", Message: JoinRequest, Bytes: 40, Sender: "q\"x", ID: 2}, // the sender is escaped in the id
			`{"type":"message_sent","peer":"b","message":"join_request","bytes":40,"updates":0,"id":"q\"x#2"}`},
		{&ProbeSent{Target: "b", Seq: 17, Mode: ModeDirect},
			`{"type":"probe_sent","target":"b","seq":17,"mode":"direct"}`},
		{&ProbeSent{Target: "b", Seq: 17, Mode: ModeIndirect, Via: []string{"c", "d"}},
			`{"type":"probe_sent","target":"b","seq":17,"mode":"indirect","via":["c","d"]}`},
		{&ProbeAcked{Target: "b", Seq: 17, Mode: ModeIndirect, RTTNs: 123},
			`{"type":"probe_acked","target":"b","seq":17,"mode":"indirect","rtt_ns":123}`},
		{&ProbeTimedOut{Target: "b", Seq: 17, Mode: ModeDirect},
			`{"type":"probe_timed_out","target":"b","seq":17,"mode":"direct"}`},
		{&SelfIncarnationBump{Old: 3, New: 4, Cause: CauseRefuteSuspect},
			`{"type":"self_incarnation_bump","old":3,"new":4,"cause":"refute_suspect"}`},
	}
	for _, c := range cases {
		got := string(c.ev.AppendJSON([]byte("prefix:")))
		if got != "prefix:"+c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.ev.Type(), got, c.want)
		}
		if !json.Valid([]byte(c.want)) {
			t.Errorf("invalid JSON %s", c.want)
		}
	}
}

func TestAppendJSONString_Escaping(t *testing.T) {
	cases := map[string]string{
		"plain":            `"plain"`,
		`q"b\`:             `"q\"b\\"`,
		"nl\n\r\t":         `"nl\n\r\t"`,
		"\x00\x1f":         `"\u0000\u001f"`,
		"bad\xffutf8":      `"bad\ufffdutf8"`,
		"é€😀":              `"é€😀"`,
		"ls\u2028ps\u2029": `"ls\u2028ps\u2029"`,
	}
	for in, want := range cases {
		got := string(appendJSONString(nil, in))
		if got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestSnapshot_Shape(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.run(3 * s)
	c.isolate("c", true)
	c.runUntil(10*s, func() bool { st, _, _ := c.nodes["a"].View("c"); return st == Suspect })
	snap := c.nodes["a"].Snapshot()
	var v struct {
		Self        string `json:"self"`
		Incarnation uint64 `json:"incarnation"`
		Health      int    `json:"health"`
		Members     []struct {
			ID                  string   `json:"id"`
			State               string   `json:"state"`
			SuspicionDeadlineNs *int64   `json:"suspicion_deadline_ns"`
			Accusers            []string `json:"accusers"`
		} `json:"members"`
		BroadcastQueue struct{ Depth, Bytes int } `json:"broadcast_queue"`
		Probe          struct {
			Round       uint64 `json:"round"`
			RoundLength int    `json:"round_length"`
		} `json:"probe"`
		Counters map[string]uint64 `json:"counters"`
	}
	if err := json.Unmarshal(snap, &v); err != nil {
		t.Fatalf("%v\n%s", err, snap)
	}
	if v.Self != "a" || len(v.Members) != 3 || v.Members[0].ID != "a" || v.Members[2].ID != "c" {
		t.Fatalf("%s", snap)
	}
	if cm := v.Members[2]; cm.State != "suspect" || cm.SuspicionDeadlineNs == nil || len(cm.Accusers) == 0 {
		t.Fatalf("suspect member: %s", snap)
	}
	if v.Members[1].SuspicionDeadlineNs != nil {
		t.Fatalf("alive member has a deadline: %s", snap)
	}
	if v.BroadcastQueue.Depth == 0 || v.BroadcastQueue.Bytes == 0 || v.Probe.RoundLength != 2 || v.Counters["probes"] == 0 {
		t.Fatalf("%s", snap)
	}
	// Field order is fixed.
	want := `{"self":"a","incarnation":0,"health":`
	if string(snap[:len(want)]) != want {
		t.Fatalf("snapshot starts %s", snap[:len(want)])
	}
}
