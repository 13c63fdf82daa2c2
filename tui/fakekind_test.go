package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/hosts/pane"
	"github.com/detsim/detsim/kinds/swim/swimhost"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// fakeKind is a test-only host kind whose snapshots have SWIM's shape,
// so the membership matrix can be tested (and benchmarked with a hundred
// hosts) without the SWIM adapter. Each tick a host sends one gossip
// message to a random peer and may move its view of a random peer along
// alive → suspect → dead → alive (with a higher incarnation), recording a
// state_transition as SWIM would.
var fakeKind = mshipKind{plainKind{"mship"}}

// plainKind is the fake kind's runtime alone: no views, marks or pane.
type plainKind struct{ tag string }

func (k plainKind) Tag() string                                        { return k.tag }
func (plainKind) States() []string                                     { return []string{"member", "down"} }
func (plainKind) DownState() string                                    { return "down" }
func (plainKind) RestartState() string                                 { return "member" }
func (plainKind) Validate(map[string]any, []string) []hosts.FieldError { return nil }
func (plainKind) Codec() hosts.Codec                                   { return fakeCodec{} }
func (plainKind) New(id string, _ map[string]any, _ string, peers []string, r *rng.Stream) hosts.Host {
	return &fakeHost{id: id, peers: peers, r: r, view: make([]fakeView, len(peers))}
}

// mshipKind's snapshots and records have SWIM's shape, and it says so:
// the stepper draws a kind as the kind declares (issue 24), never by
// guessing from a snapshot's shape.
type mshipKind struct{ plainKind }

var swimLanes = swimhost.Kind.(hosts.Lanes)

func (mshipKind) Marks() []hosts.Mark            { return swimLanes.Marks() }
func (mshipKind) Views() *hosts.Views            { return swimLanes.Views() }
func (mshipKind) Band() *hosts.Band              { return nil }
func (mshipKind) History() *hosts.History        { return nil }
func (mshipKind) Pane(in pane.Input) []pane.Line { return swimhost.Kind.(pane.Drawer).Pane(in) }

type fakeView struct {
	state string
	inc   uint64
	dl    int64
}

type fakeHost struct {
	id    string
	peers []string
	r     *rng.Stream
	view  []fakeView
	ticks int
	sent  int
	recv  int
}

type fakeEvent struct {
	observer, subject, from, to string
	inc                         uint64
}

func (*fakeEvent) Type() string { return "state_transition" }
func (e *fakeEvent) AppendJSON(b []byte) []byte {
	return fmt.Appendf(b, `{"type":"state_transition","observer":%q,"subject":%q,"from":%q,"to":%q,"incarnation":%d,"reason":"gossip"}`,
		e.observer, e.subject, e.from, e.to, e.inc)
}

func (h *fakeHost) ID() string   { return h.id }
func (h *fakeHost) Kind() string { return "mship" }

func (h *fakeHost) Tick(now int64) []hosts.Action {
	var acts []hosts.Action
	if h.ticks == 0 {
		for i := range h.view {
			h.view[i] = fakeView{state: "alive"}
		}
	}
	h.ticks++
	i := int(h.r.Below(uint64(len(h.peers))))
	if h.peers[i] != h.id {
		acts = append(acts, hosts.Send(h.peers[i], []byte("gossip")))
		h.sent++
	}
	if h.r.Chance(200_000) {
		j := int(h.r.Below(uint64(len(h.peers))))
		if h.peers[j] != h.id {
			v := &h.view[j]
			from := v.state
			switch v.state {
			case "alive":
				v.state, v.dl = "suspect", now+2_000_000_000
			case "suspect":
				v.state, v.dl = "dead", 0
			default:
				v.state, v.dl = "alive", 0
				v.inc++
			}
			acts = append(acts, hosts.Record(&fakeEvent{observer: h.id, subject: h.peers[j], from: from, to: v.state, inc: v.inc}))
		}
	}
	return acts
}

func (h *fakeHost) Recv(msg hosts.Message, now int64) []hosts.Action {
	h.recv++
	return nil
}

func (h *fakeHost) Snapshot() []byte {
	b := []byte(`{"self":` + strconv.Quote(h.id) + `,"incarnation":0,"health":1,"health_max":7,"gossip":"bounded","joined":true,"members":[`)
	for i, id := range h.peers {
		if i > 0 {
			b = append(b, ',')
		}
		v := h.view[i]
		if v.state == "" {
			v.state = "alive"
		}
		b = fmt.Appendf(b, `{"id":%q,"state":%q,"incarnation":%d`, id, v.state, v.inc)
		if v.state == "suspect" {
			b = fmt.Appendf(b, `,"suspicion_deadline_ns":%d,"confirmations":0,"accusers":[]`, v.dl)
		}
		b = append(b, '}')
	}
	b = fmt.Appendf(b, `],"broadcast_queue":{"depth":%d,"bytes":%d},"probe":{"round":%d,"position":0,"round_length":%d,"next_probe_ns":0},"counters":{"messages_sent":%d,"messages_received":%d}}`,
		h.ticks%5, 40*(h.ticks%5), h.ticks, len(h.peers)-1, h.sent, h.recv)
	return b
}

func (h *fakeHost) Clone() hosts.Host {
	c := *h
	c.view = append([]fakeView(nil), h.view...)
	c.r = h.r.Clone()
	return &c
}

type fakeCodec struct{}

func (fakeCodec) Append(dst []byte, msg any) ([]byte, error) {
	b, ok := msg.([]byte)
	if !ok {
		return nil, errors.New("fake: not bytes")
	}
	return append(dst, b...), nil
}
func (fakeCodec) Decode(b []byte) (any, error) { return nil, nil }

// meshScenario is n fake-membership peers on a full mesh for dur ns.
func meshScenario(n int, dur int64) *scenarios.Scenario {
	p := network.Policy{LatencyNs: 5_000_000, JitterStddevNs: 1_000_000, BandwidthBps: 1 << 24,
		ColdDialPenaltyNs: 10_000_000, CacheWarmAfterNs: 50_000_000, CacheInvalidateAfterIdleNs: 2_000_000_000}
	sc := &scenarios.Scenario{Name: "mesh", Seed: 42, DurationNs: dur, TickPeriodNs: 100_000_000, DefaultLink: p}
	for i := 0; i < n; i++ {
		sc.Peers = append(sc.Peers, scenarios.Peer{ID: fmt.Sprintf("p%02d", i), Kind: "mship", InitialState: "member", KindConfig: map[string]any{}})
	}
	for _, a := range sc.Peers {
		for _, b := range sc.Peers {
			if a.ID != b.ID {
				sc.Links = append(sc.Links, network.Link{Edge: network.Edge{From: a.ID, To: b.ID}, Policy: p})
			}
		}
	}
	return sc
}

// TestKind_DrawnAsItDeclaresNotBySnapshotShape (issue 24): a kind whose
// snapshots happen to have SWIM's members and self, but which declares
// no views or pane, is drawn as its snapshot, never as a membership
// matrix; before, the stepper guessed SWIM from the snapshot's shape.
func TestKind_DrawnAsItDeclaresNotBySnapshotShape(t *testing.T) {
	plain := lookalikeKind{plainKind{"lookalike"}}
	reg := builtin.Registry()
	reg.Register(plain)
	sc := meshScenario(4, 2_000_000_000)
	for i := range sc.Peers {
		sc.Peers[i].Kind = plain.Tag()
	}
	m, err := NewModel(sc, reg, Options{Width: 160, Height: 48})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("g", "text:1s", "enter")...)
	s := screenText(m)
	if m.frame().Views() != "" || strings.Contains(s, "membership") || !strings.Contains(s, "─ hosts") {
		t.Fatalf("a kind without views drawn as a matrix:\n%s", s)
	}
}

// lookalikeKind builds lookalikes, and declares nothing but its runtime.
type lookalikeKind struct{ plainKind }

func (k lookalikeKind) New(id string, c map[string]any, s string, peers []string, r *rng.Stream) hosts.Host {
	return &lookalike{k.plainKind.New(id, c, s, peers, r).(*fakeHost)}
}

// lookalike is a fakeHost under another tag.
type lookalike struct{ *fakeHost }

func (h *lookalike) Kind() string { return "lookalike" }
func (h *lookalike) Clone() hosts.Host {
	return &lookalike{h.fakeHost.Clone().(*fakeHost)}
}
