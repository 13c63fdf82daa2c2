package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/echo"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// lossyPolicy is a link with every impairment switched on.
var lossyPolicy = network.Policy{
	LatencyNs:                  20_000_000,
	JitterStddevNs:             5_000_000,
	LossProbPPM:                50_000,
	ReorderProbPPM:             100_000,
	BandwidthBps:               1_000_000,
	ColdDialPenaltyNs:          30_000_000,
	CacheWarmAfterNs:           50_000_000,
	CacheInvalidateAfterIdleNs: 150_000_000,
}

// meshScenario is n peers of kind on a full mesh of p, ticking every
// 100 ms for dur.
func meshScenario(kind string, n int, p network.Policy, dur int64) *scenarios.Scenario {
	sc := &scenarios.Scenario{Name: "mesh", Seed: 42, DurationNs: dur, TickPeriodNs: 100_000_000, DefaultLink: p}
	for i := 0; i < n; i++ {
		sc.Peers = append(sc.Peers, scenarios.Peer{ID: fmt.Sprintf("p%02d", i), Kind: kind, InitialState: "up", KindConfig: map[string]any{}})
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

// lines captures events.ndjson as a RecordWriter.
type lines struct{ buf bytes.Buffer }

func (l *lines) WriteEventLine(b []byte) error { l.buf.Write(b); return nil }
func (l *lines) WriteSnapshot(string, int, []byte) error {
	return nil
}

func (l *lines) types() []string {
	var out []string
	for _, ln := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		i := strings.Index(ln, `"type":"`)
		if i < 0 {
			continue
		}
		rest := ln[i+8:]
		out = append(out, rest[:strings.IndexByte(rest, '"')])
	}
	return out
}

func mustEngine(t testing.TB, sc *scenarios.Scenario, opts Options) *Engine {
	t.Helper()
	e, err := New(sc, registry(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func registry() *hosts.Registry { return hosts.NewRegistry(echo.Kind, scriptKind) }

// scriptKind is a test host kind whose behaviour the test steers through
// kind_config: "halt_tick" halts from its Nth tick, "halt_recv" from its
// Nth receive, "timer_ns" schedules a timer that far ahead on every tick,
// "send_to" sends a message to that peer on every tick, of "send_bytes"
// bytes when set. A SendFailed is recorded with its reason.
var scriptKind = scriptKindT{}

type scriptKindT struct{}

func (scriptKindT) Tag() string                                          { return "script" }
func (scriptKindT) States() []string                                     { return []string{"up", "down"} }
func (scriptKindT) DownState() string                                    { return "down" }
func (scriptKindT) RestartState() string                                 { return "up" }
func (scriptKindT) Validate(map[string]any, []string) []hosts.FieldError { return nil }
func (scriptKindT) Codec() hosts.Codec                                   { return scriptCodec{} }

func (scriptKindT) New(id string, cfg map[string]any, _ string, _ []string, r *rng.Stream) hosts.Host {
	h := &scriptHost{id: id, draw: r.Uint64()}
	h.haltTick, _ = cfg["halt_tick"].(int64)
	h.haltRecv, _ = cfg["halt_recv"].(int64)
	h.timerNs, _ = cfg["timer_ns"].(int64)
	h.sendTo, _ = cfg["send_to"].(string)
	h.sendBytes, _ = cfg["send_bytes"].(int64)
	h.bad, _ = cfg["bad"].(bool)
	h.records, _ = cfg["records"].(int64)
	return h
}

type scriptHost struct {
	id                          string
	draw                        uint64 // first draw of its substream: tells lives apart
	haltTick, haltRecv, timerNs int64
	sendTo                      string
	sendBytes                   int64
	bad                         bool
	ticks, recvs                int64
	records                     int64  // extra records per tick
	trims                       int64  // calls of Trim (hosts.Trimmer)
	starts                      string // calls of Started (hosts.Restarter): "now:resumed,"
}

func (h *scriptHost) Started(now int64, resumed bool) {
	h.starts += strconv.FormatInt(now, 10) + ":" + strconv.FormatBool(resumed) + ","
}

func (h *scriptHost) Trim() { h.trims++ }

func (h *scriptHost) ID() string   { return h.id }
func (h *scriptHost) Kind() string { return "script" }
func (h *scriptHost) Tick(now int64) []hosts.Action {
	h.ticks++
	acts := []hosts.Action{hosts.Record(note{typ: "tick", n: h.ticks})}
	for i := range h.records {
		acts = append(acts, hosts.Record(note{typ: "burst", n: i}))
	}
	if h.timerNs > 0 {
		acts = append(acts, hosts.Timer(now+h.timerNs, uint64(h.ticks)))
	}
	if h.sendTo != "" {
		payload := "hi"
		if h.bad {
			payload = "bad"
		}
		if h.sendBytes > 0 {
			payload = strings.Repeat("x", int(h.sendBytes))
		}
		acts = append(acts, hosts.Send(h.sendTo, payload))
	}
	if h.haltTick > 0 && h.ticks >= h.haltTick {
		acts = append(acts, hosts.HaltAction())
	}
	return acts
}
func (h *scriptHost) Recv(m hosts.Message, now int64) []hosts.Action {
	h.recvs++
	var acts []hosts.Action
	switch m := m.(type) {
	case *hosts.TimerFired:
		acts = append(acts, hosts.Record(note{typ: "timer", n: int64(m.Token)}))
	case *hosts.Delivery:
		acts = append(acts, hosts.Record(note{typ: "recv", n: h.recvs}))
	case *hosts.SendFailed:
		acts = append(acts, hosts.Record(note{typ: "send_failed", n: h.recvs, reason: m.Reason}))
	}
	if h.haltRecv > 0 && h.recvs >= h.haltRecv {
		acts = append(acts, hosts.HaltAction())
	}
	return acts
}
func (h *scriptHost) Snapshot() []byte {
	return []byte(`{"starts":"` + h.starts + `","ticks":` + strconv.FormatInt(h.ticks, 10) + `,"draw":` + strconv.FormatUint(h.draw, 10) + `}`)
}
func (h *scriptHost) Clone() hosts.Host { c := *h; return &c }

type note struct {
	typ    string
	n      int64
	reason string // for send_failed
}

func (n note) Type() string { return n.typ }
func (n note) AppendJSON(b []byte) []byte {
	b = strconv.AppendInt(append(b, `{"type":"`+n.typ+`","n":`...), n.n, 10)
	if n.reason != "" {
		b = jsonw.AppendString(append(b, `,"reason":`...), n.reason)
	}
	return b
}

type scriptCodec struct{}

func (scriptCodec) Append(b []byte, m any) ([]byte, error) { return append(b, m.(string)...), nil }
func (scriptCodec) Decode(b []byte) (any, error) {
	if string(b) == "bad" {
		return nil, errors.New("script: bad bytes")
	}
	return string(b), nil
}
