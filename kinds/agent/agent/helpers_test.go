package agent_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/agent/internal/agenttest"
	"github.com/detsim/detsim/scenarios"
)

// episode is one run's serialised episode: every event line, every
// message the hosts put on the wire in full (the requests' bodies, the
// response streams with their ids and headers, the tool calls and
// results), then the agent's final snapshot (its session store
// included). Seed 001 step 2: compare the full bytes, never lengths —
// a random id anywhere in a response changes these bytes.
type episode struct {
	events []string
	wire   []string // each message's encoded bytes, quoted
	snap   []byte
	end    int64 // virtual time of the last record
}

func (e episode) bytes() []byte {
	var b bytes.Buffer
	for _, l := range e.events {
		b.WriteString(l) // the Tap's line ends in its newline
	}
	b.WriteString("-- wire: every message sent, in send order --\n")
	for _, w := range e.wire {
		b.WriteString(w)
		b.WriteByte('\n')
	}
	b.WriteString("-- snapshot of agent --\n")
	b.Write(e.snap)
	b.WriteByte('\n')
	return b.Bytes()
}

// wireCodec is a kind's codec that also logs every message it encodes:
// the engine encodes each Send with the sender's codec, once, in order.
type wireCodec struct {
	hosts.Codec
	log *[]string
}

func (c wireCodec) Append(dst []byte, m any) ([]byte, error) {
	out, err := c.Codec.Append(dst, m)
	if err == nil {
		*c.log = append(*c.log, strconv.Quote(string(out[len(dst):])))
	}
	return out, err
}

// wireRegistry is builtin.Registry with every kind's codec logging to log.
func wireRegistry(log *[]string) *hosts.Registry {
	reg := builtin.Registry()
	var kinds []hosts.Kind
	for _, tag := range reg.Tags() {
		k, _ := reg.Lookup(tag)
		kinds = append(kinds, wireKind{Kind: k, codec: wireCodec{Codec: k.Codec(), log: log}})
	}
	return hosts.NewRegistry(kinds...)
}

// wireKind is k with its codec replaced, and what a run reads of k's
// optional interfaces passed on (each the zero value where k has none,
// which the loader and the engine read as none).
type wireKind struct {
	hosts.Kind
	codec hosts.Codec
}

func (k wireKind) Codec() hosts.Codec            { return k.codec }
func (k wireKind) DownState() string             { d, _ := hosts.DownStates(k.Kind); return d }
func (k wireKind) RestartState() string          { _, r := hosts.DownStates(k.Kind); return r }
func (k wireKind) Cancellable() bool             { return hosts.IsCancellable(k.Kind) }
func (k wireKind) Assertions() *hosts.Assertions { return hosts.AssertionsOf(k.Kind) }
func (k wireKind) ValidatePeers(members []hosts.PeerConfig, peers []string) []hosts.FieldError {
	if v, ok := k.Kind.(hosts.PeersValidator); ok {
		return v.ValidatePeers(members, peers)
	}
	return nil
}

// agentEvents are the agent's records of type typ, as lines.
func (e episode) of(typ string) []string {
	var out []string
	for _, l := range e.events {
		if strings.Contains(l, `"event":{"type":"`+typ+`"`) {
			out = append(out, l)
		}
	}
	return out
}

func load(t testing.TB, path string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load(path, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func parse(t testing.TB, text string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("t.toml", []byte(text), builtin.Registry(), func(p string) ([]byte, error) { return os.ReadFile(p) })
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func run(t testing.TB, sc *scenarios.Scenario) episode {
	t.Helper()
	var ep episode
	e, err := engine.New(sc, wireRegistry(&ep.wire), engine.Options{Tap: func(_ int64, at int64, b []byte) {
		ep.events = append(ep.events, string(b))
		ep.end = at
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	for _, h := range e.Hosts() {
		if h.Kind == "agent" {
			ep.snap = h.Snapshot
		}
	}
	return ep
}

// header is the common top of the test scenarios: three peers on 20 ms
// links for 900 s, the agent's and provider's kind_config left to the
// caller.
func header(agentCfg, script, toolCfg string) string {
	return agenttest.Scenario("t", 3, 900_000_000_000, 20_000_000, 1_250_000, agentCfg, script, toolCfg)
}
