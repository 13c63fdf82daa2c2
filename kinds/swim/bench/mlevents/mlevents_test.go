package mlevents

import (
	"bytes"
	"compress/lzw"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
)

func encode(t *testing.T, typ byte, bodies ...any) []byte {
	t.Helper()
	out := []byte{typ}
	for _, b := range bodies {
		var buf []byte
		if err := codec.NewEncoderBytes(&buf, mlHandle).Encode(b); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf...)
	}
	return out
}

func compress(t *testing.T, msg []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := lzw.NewWriter(&buf, lzw.LSB, 8)
	w.Write(msg)
	w.Close()
	return encode(t, mlCompress, mlCompressBody{Algo: 0, Buf: buf.Bytes()})
}

// A stream message is framed as memberlist's readStream reads it, so a
// reader of TCP bytes knows where each message ends: never at a strict
// prefix, and exactly at the end.
func TestStreamMessageLen_FramesWhatMemberlistWrites(t *testing.T) {
	type node struct {
		Name        string
		Incarnation uint32
	}
	type header struct {
		Nodes        int
		UserStateLen int
		Join         bool
	}
	pushPull := encode(t, mlPushPull, header{Nodes: 2, UserStateLen: 3, Join: true}, node{"a", 1}, node{"b", 2})
	pushPull = append(pushPull, "xyz"...)
	ping := encode(t, mlPing, mlSeqBody{SeqNo: 7, Node: "b"})
	for name, msg := range map[string][]byte{
		"push/pull": pushPull, "ping": ping, "compressed push/pull": compress(t, pushPull),
		"user": append(encode(t, mlUser, struct{ UserMsgLen int }{2}), "hi"...),
	} {
		for i := range len(msg) {
			if n, ok := StreamMessageLen(msg[:i]); ok {
				t.Errorf("%s: a whole message of %d bytes in its first %d", name, n, i)
			}
		}
		if n, ok := StreamMessageLen(append(msg, 0xff)); !ok || n != len(msg) {
			t.Errorf("%s: length %d %v, want %d", name, n, ok, len(msg))
		}
	}
	if m := Decode(compress(t, pushPull)); StreamKind(m, true) != "join_request" || StreamKind(m, false) != "join_response" {
		t.Errorf("compressed push/pull decodes as type %d", m.Type)
	}
	if m := Decode(ping); m.Type != mlPing || m.Seq != 7 || m.Node != "b" || StreamKind(m, true) != "tcp_ping" {
		t.Errorf("ping decodes as %+v", m)
	}
}

// A key present is honoured or refused, never ignored.
func TestParseConfig_RefusesWhatMemberlistHasNot(t *testing.T) {
	peers := []string{"a", "b"}
	for _, c := range []struct {
		kv    map[string]any
		field string
	}{
		{map[string]any{"gossip": "legacy"}, "kind_config.gossip"},
		{map[string]any{"dissemination": "swim"}, "kind_config.dissemination"},
		{map[string]any{"lifeguard_nack": false}, "kind_config.lifeguard_nack"},
		{map[string]any{"lifeguard_buddy": false}, "kind_config.lifeguard_buddy"},
		{map[string]any{"lifeguard": false}, "kind_config.lifeguard"},
		{map[string]any{"initial_incarnation": int64(0)}, "kind_config.initial_incarnation"},
		{map[string]any{"bogus": int64(1)}, "kind_config.bogus"},
		{map[string]any{"probe_timeout_ns": int64(2e9)}, "kind_config.probe_timeout_ns"},
	} {
		_, errs := ParseConfig(c.kv, peers)
		if len(errs) == 0 || errs[0].Field != c.field {
			t.Errorf("%v: %v, want a problem with %s", c.kv, errs, c.field)
		}
	}
	for _, kv := range []map[string]any{
		{"gossip": "bounded", "dissemination": "memberlist", "lifeguard": true, "fallback_probe": true},
		{"lifeguard_awareness": false, "lifeguard_suspicion": false},
	} {
		if _, errs := ParseConfig(kv, peers); len(errs) > 0 {
			t.Errorf("%v: %v", kv, errs)
		}
	}
}

// Every key with a memberlist equivalent reaches memberlist.Config.
func TestApply_MapsEveryKey(t *testing.T) {
	s, errs := ParseConfig(map[string]any{
		"probe_interval_ns": int64(2e9), "probe_timeout_ns": int64(3e8), "indirect_checks": int64(2),
		"retransmit_mult": int64(5), "suspicion_mult": int64(6), "suspicion_max_timeout_mult": int64(7),
		"awareness_max_multiplier": int64(4), "max_message_bytes": int64(1200),
		"push_pull_interval_ns": int64(0), "meta_bytes": int64(5), "fallback_probe": false,
	}, []string{"a"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	conf := memberlist.DefaultLANConfig()
	s.Apply(conf, "a")
	if conf.Name != "a" || conf.ProbeInterval != 2*time.Second || conf.ProbeTimeout != 300*time.Millisecond ||
		conf.IndirectChecks != 2 || conf.RetransmitMult != 5 || conf.SuspicionMult != 6 ||
		conf.SuspicionMaxTimeoutMult != 7 || conf.AwarenessMaxMultiplier != 4 || conf.UDPBufferSize != 1200 ||
		conf.PushPullInterval != 0 || !conf.DisableTcpPings || string(conf.Delegate.NodeMeta(512)) != "a/a/a" {
		t.Errorf("config %+v", conf)
	}
	s, _ = ParseConfig(map[string]any{"lifeguard_awareness": false, "lifeguard_suspicion": false}, []string{"a"})
	conf = memberlist.DefaultLANConfig()
	s.Apply(conf, "a")
	if conf.AwarenessMaxMultiplier != 1 || conf.SuspicionMaxTimeoutMult != 1 || conf.DisableTcpPings || conf.Delegate != nil {
		t.Errorf("lifeguard components off: %+v", conf)
	}
}

// One probe of b as memberlist makes it: the direct ping times out, two
// ping_reqs go out, an intermediary's ack comes back. Then b's failed
// probe, logged a moment before the sample sees b suspect, gives that
// change its reason, until the context expires.
func TestObserver_ProbeAndReason(t *testing.T) {
	var evs []hosts.Event
	o := NewObserver("a", 1e9, func(_ int64, ev hosts.Event) { evs = append(evs, ev) })
	o.Sample(0, map[string]View{"a": {swim.Alive, 1}, "b": {swim.Alive, 1}})
	ping := Decode(encode(t, mlPing, mlSeqBody{SeqNo: 9, Node: "b"}))
	req := Decode(encode(t, mlIndirectPing, mlSeqBody{SeqNo: 9, Node: "b"}))
	ack := Decode(encode(t, mlAck, mlSeqBody{SeqNo: 9}))
	o.PacketSent(10, "b", 70, ping, 0)
	o.LogLine(500, "2026/12/02 00:00:00 [DEBUG] memberlist: Failed UDP ping: b (timeout reached)\n")
	o.PacketSent(501, "c", 80, req, 0)
	o.PacketSent(502, "d", 80, req, 0)
	if k := o.ReceivedKind("c", ack); k != "indirect_ack" {
		t.Errorf("an intermediary's ack received as %q", k)
	}
	o.PacketReceived(600, "c", 20, ack, "indirect_ack")
	o.LogLine(2000, "[INFO] memberlist: Suspect b has failed, no acks received\n")
	o.ExpireContext(1000)
	o.Sample(2001, map[string]View{"a": {swim.Alive, 1}, "b": {swim.Suspect, 1}})
	o.Sample(2002, map[string]View{"a": {swim.Alive, 2}, "b": {swim.Suspect, 1}})
	o.ExpireContext(5000)
	o.Sample(5001, map[string]View{"a": {swim.Alive, 2}, "b": {swim.Alive, 2}})
	want := []string{
		`{"type":"state_transition","observer":"a","subject":"a","from":"none","to":"alive","incarnation":1,"reason":"initial"}`,
		`"reason":"gossip"`,
		`{"type":"probe_sent","target":"b","seq":9,"mode":"direct"}`,
		`{"type":"message_sent","peer":"b","message":"ping","bytes":70,"updates":0}`,
		`{"type":"probe_timed_out","target":"b","seq":9,"mode":"direct"}`,
		`{"type":"probe_sent","target":"b","seq":9,"mode":"indirect","via":["c","d"]}`,
		`"message":"ping_req"`, `"message":"ping_req"`,
		`{"type":"message_received","peer":"c","message":"indirect_ack","bytes":20,"updates":0}`,
		`{"type":"probe_acked","target":"b","seq":9,"mode":"indirect","rtt_ns":590}`,
		`{"type":"probe_timed_out","target":"b","seq":0,"mode":"indirect"}`,
		`"subject":"b","from":"alive","to":"suspect","incarnation":1,"reason":"probe_failed"`,
		`"subject":"a","from":"alive","to":"alive","incarnation":2,"reason":"refuted"`,
		`{"type":"self_incarnation_bump","old":1,"new":2,"cause":"refute_suspect"}`,
		`"subject":"b","from":"suspect","to":"alive","incarnation":2,"reason":"refuted"`,
	}
	var recs []string // encoded at the end: NewObserver's NB
	for _, ev := range evs {
		recs = append(recs, string(ev.AppendJSON(nil)))
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(recs), len(want), strings.Join(recs, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(recs[i], w) {
			t.Errorf("record %d = %s, want it to contain %s", i, recs[i], w)
		}
	}
}
