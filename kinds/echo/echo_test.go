package echo

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/detsim/detsim/hosts"
)

func TestCodec_RoundTripAndExactLength(t *testing.T) {
	for _, m := range []msg{{pong: false, seq: 1, payload: 0}, {pong: true, seq: 1 << 60, payload: 64}, {seq: 7, payload: MaxPayloadBytes}} {
		b, err := codec{}.Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != headerLen+m.payload {
			t.Fatalf("%+v encodes to %d bytes, want %d", m, len(b), headerLen+m.payload)
		}
		got, err := codec{}.Decode(b)
		if err != nil || *got.(*msg) != m {
			t.Fatalf("round trip %+v -> %+v, %v", m, got, err)
		}
	}
	// Fixed vector, written by hand from the format in codec.go.
	b, _ := codec{}.Append(nil, &msg{pong: true, seq: 0x0102030405060708, payload: 2})
	if want := []byte{0x02, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0}; !bytes.Equal(b, want) {
		t.Fatalf("pong vector % x, want % x", b, want)
	}
}

// The engine decodes every delivery to a host into the value of the one
// before (hosts.ReusingCodec): it must fill that value, not a new one, and
// decode what Decode decodes.
func TestCodec_DecodeIntoReusesAndAgrees(t *testing.T) {
	var rc hosts.ReusingCodec = codec{}
	into, err := rc.DecodeInto([]byte{tagPing, 0, 0, 0, 0, 0, 0, 0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []msg{{pong: true, seq: 1 << 60, payload: 64}, {seq: 7, payload: 0}} {
		b, _ := codec{}.Append(nil, &m)
		got, err := rc.DecodeInto(b, into)
		if err != nil || got != into || *got.(*msg) != m {
			t.Fatalf("DecodeInto %+v -> %p %+v, %v; want %p filled", m, got, got, err, into)
		}
		if fresh, _ := rc.Decode(b); *fresh.(*msg) != m {
			t.Fatalf("Decode %+v -> %+v", m, fresh)
		}
	}
	if _, err := rc.DecodeInto([]byte{0x03, 0, 0, 0, 0, 0, 0, 0, 0}, into); err == nil {
		t.Error("DecodeInto took a bad tag")
	}
}

func TestCodec_RejectsMalformed(t *testing.T) {
	for _, b := range [][]byte{nil, {0x01}, {0x03, 0, 0, 0, 0, 0, 0, 0, 0}, make([]byte, maxWire+1)} {
		if _, err := (codec{}).Decode(b); err == nil {
			t.Errorf("% x... (%d bytes) decoded", b[:min(len(b), 9)], len(b))
		}
	}
	if _, err := (codec{}).Append(nil, "not an echo message"); err == nil {
		t.Error("encoded a foreign message")
	}
}

func TestValidate_PayloadBytes(t *testing.T) {
	if errs := validate(map[string]any{}, nil); len(errs) != 0 {
		t.Fatalf("empty kind_config rejected: %v", errs)
	}
	for _, cfg := range []map[string]any{{"payload_bytes": "64"}, {"payload_bytes": int64(-1)}, {"payload_bytes": int64(MaxPayloadBytes + 1)}, {"payload": int64(3)}} {
		if errs := validate(cfg, nil); len(errs) != 1 {
			t.Errorf("%v: %v, want one error", cfg, errs)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x01, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{0x02, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := codec{}.Decode(b)
		if err != nil {
			return
		}
		out, err := codec{}.Append(nil, m)
		if err != nil || len(out) != len(b) || out[0] != b[0] || !bytes.Equal(out[1:9], b[1:9]) {
			t.Fatalf("accepted % x but re-encodes to % x (%v)", b, out, err)
		}
	})
}

// A host's memory does not grow with the peer count: the peer list is the
// engine's, shared, and a tick's buffers for thousands of pings are not
// kept past the next call. Before, every host copied the peer list and
// kept buffers for one event and two actions per peer: 9 999 echo peers
// took gigabytes before their first record.
func TestHost_MemoryDoesNotGrowWithPeers(t *testing.T) {
	peers := make([]string, 9999)
	for i := range peers {
		peers[i] = fmt.Sprintf("p%04d", i)
	}
	h := newHost("p0001", nil, "up", peers, nil).(*host)
	if acts := h.Tick(0); len(acts) != 2*(len(peers)-1) {
		t.Fatalf("a tick made %d actions, want a record and a send per other peer", len(acts))
	}
	h.Recv(&hosts.Delivery{From: "p0002", Payload: &msg{seq: 1}}, 1)
	if b := h.ApproxBytes(); b > 4096 {
		t.Errorf("after the tick's records were taken, the host holds %d bytes", b)
	}
	if &h.peers[0] != &peers[0] {
		t.Error("the host copied the peer list")
	}
}

// A host's actions are built once and point at its own events, so a
// clone (a checkpoint's) must build its own: ticking or answering on the
// clone leaves what the original recorded untouched.
func TestHost_CloneSharesNoActions(t *testing.T) {
	peers := []string{"a", "b", "c"}
	h := newHost("a", nil, "up", peers, nil).(*host)
	h.Tick(0)
	h.Recv(&hosts.Delivery{From: "b", Payload: &msg{seq: 7}}, 1)
	c := h.Clone().(*host)
	for _, a := range c.Tick(2) {
		if a.Kind() == hosts.ActRecord && a.Event().(*event).seq != 2 {
			t.Fatalf("the clone's second tick recorded %+v", a.Event())
		}
	}
	c.Recv(&hosts.Delivery{From: "c", Payload: &msg{pong: true, seq: 9}}, 3)
	if h.tickEvs[0].seq != 1 || h.recvEvs[0].peer != "b" || h.recvEvs[0].seq != 7 {
		t.Fatalf("the clone's calls changed the original's events: %+v %+v", h.tickEvs[0], h.recvEvs[0])
	}
}
