package engine

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
)

// streamKind opens a reliable stream to "p01" on every tick of "p00" and
// sends a datagram beside it; a reliable delivery is answered on its
// stream and recorded as "reliable", a datagram as "datagram".
var streamKind = streamKindT{}

type streamKindT struct{}

func (streamKindT) Tag() string                                          { return "stream" }
func (streamKindT) States() []string                                     { return []string{"up", "down"} }
func (streamKindT) DownState() string                                    { return "down" }
func (streamKindT) RestartState() string                                 { return "up" }
func (streamKindT) Validate(map[string]any, []string) []hosts.FieldError { return nil }
func (streamKindT) Codec() hosts.Codec                                   { return scriptCodec{} }

func (streamKindT) New(id string, _ map[string]any, _ string, _ []string, _ *rng.Stream) hosts.Host {
	return &streamHost{id: id}
}

type streamHost struct{ id string }

func (h *streamHost) ID() string   { return h.id }
func (h *streamHost) Kind() string { return "stream" }
func (h *streamHost) Tick(int64) []hosts.Action {
	if h.id != "p00" {
		return nil
	}
	return []hosts.Action{hosts.SendReliable("p01", "ping", 0), hosts.Send("p01", "dgram")}
}
func (h *streamHost) Recv(m hosts.Message, _ int64) []hosts.Action {
	d, ok := m.(*hosts.Delivery)
	if !ok {
		return nil
	}
	if !d.Reliable {
		return []hosts.Action{hosts.Record(note{typ: "datagram"})}
	}
	acts := []hosts.Action{hosts.Record(note{typ: "reliable"})}
	if d.Payload == "ping" {
		acts = append(acts, hosts.ReplyReliable(d.From, "ack", 0))
	}
	return acts
}
func (h *streamHost) Snapshot() []byte  { return []byte(`{}`) }
func (h *streamHost) Clone() hosts.Host { c := *h; return &c }

func TestReliableSend_SkipsLossAndReachesTheHostMarked(t *testing.T) {
	p := network.Policy{LatencyNs: 10_000_000, BandwidthBps: 1_000_000, LossProbPPM: 1_000_000}
	sc := meshScenario("stream", 2, p, 1_000_000_000)
	var out lines
	e, err := New(sc, hosts.NewRegistry(streamKind), Options{Writer: &out})
	if err != nil {
		t.Fatal(err)
	}
	e.Run()
	counts := map[string]int{}
	for _, typ := range out.types() {
		counts[typ]++
	}
	// Ten ticks of p00 in 1 s: ten pings and ten acks over streams, every
	// datagram lost.
	if counts["reliable"] < 18 || counts["datagram"] != 0 {
		t.Errorf("records %v: want about 20 reliable deliveries (pings and their acks) and no datagram", counts)
	}
	if !strings.Contains(out.buf.String(), `"reason":"lossy"`) {
		t.Errorf("the datagrams beside the streams should be lost: %s", out.buf.String())
	}
}
