package swimhost_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/echo"
	"github.com/detsim/detsim/kinds/swim/swimhost"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// recordingCodec wraps the SWIM codec and remembers the length of every
// message it encodes, in order.
type recordingCodec struct {
	hosts.Codec
	lens *[]int
}

func (c recordingCodec) Append(b []byte, m any) ([]byte, error) {
	start := len(b)
	out, err := c.Codec.Append(b, m)
	*c.lens = append(*c.lens, len(out)-start)
	return out, err
}

// sentSizes collects message_sent.bytes in record order.
type sentSizes struct{ bytes []int }

func (s *sentSizes) Event(_ int64, _ string, tag string, ev hosts.Event) {
	if tag != swimhost.Tag || ev.Type() != "message_sent" {
		return
	}
	var p struct {
		Bytes int `json:"bytes"`
	}
	if err := json.Unmarshal(ev.AppendJSON(nil), &p); err != nil {
		panic(err)
	}
	s.bytes = append(s.bytes, p.Bytes)
}
func (s *sentSizes) Snapshot(int64, string, int, []byte) {}

// TestMessageSentBytes_EqualsWhatTheCodecProduced is the §3.3 contract in a
// real run: every message_sent record's byte count is the length of the
// bytes the codec put on the wire for that message, so the bandwidth
// model charges exactly what the node accounted. The gossip-flap
// reproduction is used because its messages range from tens of bytes to
// kilobytes.
func TestMessageSentBytes_EqualsWhatTheCodecProduced(t *testing.T) {
	var lens []int
	kind := recordingKind{codec: recordingCodec{Codec: swimhost.Kind.Codec(), lens: &lens}}
	reg := hosts.NewRegistry(kind, echo.Kind)
	sc, err := scenarios.LoadLibrary("reproduction/gossip_flap", reg)
	if err != nil {
		t.Fatal(err)
	}
	sink := &sentSizes{}
	e, err := engine.New(sc, reg, engine.Options{Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if len(lens) != len(sink.bytes) || len(lens) < 1000 {
		t.Fatalf("%d encodes but %d message_sent records", len(lens), len(sink.bytes))
	}
	big := 0
	for i := range lens {
		if lens[i] != sink.bytes[i] {
			t.Fatalf("message %d: message_sent says %d bytes, the codec produced %d", i, sink.bytes[i], lens[i])
		}
		if lens[i] > 1400 {
			big++
		}
	}
	if big == 0 {
		t.Fatal("no message above 1400 bytes: the run did not exercise large messages")
	}
}

// recordingKind is the swim kind with its codec replaced.
type recordingKind struct {
	swimhost.KindImpl
	codec hosts.Codec
}

func (k recordingKind) Codec() hosts.Codec { return k.codec }

// TestAdapter_PanicsOnMessagesItCannotRoute: silently dropping what the
// state machine cannot handle is the bug class the simulator exists for
// (§6.2).
func TestAdapter_PanicsOnMessagesItCannotRoute(t *testing.T) {
	reg := hosts.NewRegistry(swimhost.Kind)
	sc, err := scenarios.LoadLibrary("smoke/three_mesh", reg)
	if err != nil {
		t.Fatal(err)
	}
	h := swimhost.Kind.New("a", map[string]any{}, "member", []string{"a", "b", "c"}, nil)
	_ = sc
	defer func() {
		if recover() == nil {
			t.Fatal("an echo payload delivered to a SWIM host did not panic")
		}
	}()
	h.Recv(&hosts.Delivery{From: "b", Payload: "not a swim message"}, 0)
}

var _ = engine.Options{}

// untrimmed hides the host's Trim, so the engine never calls it; its
// clones hide it too.
type untrimmed struct{ hosts.Host }

func (u untrimmed) Clone() hosts.Host { return untrimmed{u.Host.Clone()} }

// untrimmedKind is the swim kind whose hosts are untrimmed.
type untrimmedKind struct{ swimhost.KindImpl }

func (k untrimmedKind) New(id string, cfg map[string]any, initial string, peers []string, r *rng.Stream) hosts.Host {
	return untrimmed{k.KindImpl.New(id, cfg, initial, peers, r)}
}

// TestTrim_ChangesNothingButMemory: the engine trims a swim host after
// a call that returned many actions. The run must be the same, record for record, as one
// whose hosts cannot be trimmed.
func TestTrim_ChangesNothingButMemory(t *testing.T) {
	src := []byte("name = \"trim\"\nseed = 3\nduration_ns = 3_000_000_000\n[default_tick]\nperiod_ns = 200_000_000\n" +
		"[default_link]\nlatency_ns = 1_000_000\nbandwidth_bps = 100_000_000\n")
	for i := range 300 {
		src = fmt.Appendf(src, "[[peers]]\nid = \"n%03d\"\nkind = \"swim\"\ninitial_state = \"member\"\n", i)
	}
	digest := func(kind hosts.Kind) string {
		reg := hosts.NewRegistry(kind)
		sc, err := scenarios.Parse("trim.toml", src, reg, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, err := engine.New(sc, reg, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		return e.Digest()
	}
	if _, ok := any(untrimmed{}).(hosts.Trimmer); ok {
		t.Fatal("the wrapper still offers Trim")
	}
	if a, b := digest(swimhost.Kind), digest(untrimmedKind{}); a != b {
		t.Fatalf("trimmed run digest %s, untrimmed %s", a, b)
	}
}

// ticking counts a host's Tick calls; awake also hides its TickDue, so
// the engine calls every Tick.
type ticking struct {
	hosts.Host
	n *int
}

func (t ticking) Tick(now int64) []hosts.Action { *t.n++; return t.Host.Tick(now) }
func (t ticking) Clone() hosts.Host             { return ticking{t.Host.Clone(), t.n} }
func (t ticking) TickDue() int64                { return t.Host.(hosts.Dozer).TickDue() }

type awake struct {
	hosts.Host
	n *int
}

func (a awake) Tick(now int64) []hosts.Action { *a.n++; return a.Host.Tick(now) }
func (a awake) Clone() hosts.Host             { return awake{a.Host.Clone(), a.n} }

// TestTickDue_SkippedTicksChangeNothing: the engine skips the Ticks a
// SWIM host says find nothing due (hosts.Dozer). Every record and
// snapshot of a run (its digest) must be what it is when every Tick is
// made, over scenarios that join, probe, suspect, refute, kill, pause,
// restart, partition and fall back to streams, with either queue.
// wrappedKind is the swim kind whose hosts are wrapped as they are made.
type wrappedKind struct {
	swimhost.KindImpl
	wrap func(hosts.Host) hosts.Host
}

func (k wrappedKind) New(id string, cfg map[string]any, initial string, peers []string, r *rng.Stream) hosts.Host {
	return k.wrap(k.KindImpl.New(id, cfg, initial, peers, r))
}

func TestTickDue_SkippedTicksChangeNothing(t *testing.T) {
	if _, ok := any(awake{}).(hosts.Dozer); ok {
		t.Fatal("the wrapper still offers TickDue")
	}
	for _, name := range []string{
		"reproduction/gossip_flap", "reproduction/gossip_flap_fixed", "reproduction/gossip_flap_fallback",
		"failure_modes/dead_never_hears", "failure_modes/restart_low_incarnation",
		"failure_modes/long_partition", "topology/churn",
	} {
		t.Run(name, func(t *testing.T) {
			run := func(wrap func(h hosts.Host, n *int) hosts.Host) (string, int) {
				ticks := 0
				reg := hosts.NewRegistry(wrappedKind{swimhost.KindImpl{}, func(h hosts.Host) hosts.Host { return wrap(h, &ticks) }}, echo.Kind)
				sc, err := scenarios.LoadLibrary(name, reg)
				if err != nil {
					t.Fatal(err)
				}
				e, err := engine.New(sc, reg, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := e.Run(); err != nil {
					t.Fatal(err)
				}
				return e.Digest(), ticks
			}
			every, all := run(func(h hosts.Host, n *int) hosts.Host { return awake{h, n} })
			dozing, some := run(func(h hosts.Host, n *int) hosts.Host { return ticking{h, n} })
			if every != dozing {
				t.Fatalf("digest %s with every Tick made, %s with the dozing ones skipped", every, dozing)
			}
			if some >= all {
				t.Fatalf("%d Ticks made of %d: none was skipped", some, all)
			}
			t.Logf("%d of %d Ticks made", some, all)
		})
	}
}
