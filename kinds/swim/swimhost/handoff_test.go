package swimhost_test

import (
	"fmt"
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/kinds/swim/swimhost"
	"github.com/detsim/detsim/property"
)

// recorder is the Monitor of both sides: every record as its line, time,
// envelope and JSON payload (serialised here for the headless side).
type recorder struct{ lines []string }

func (m *recorder) Observe(line, at int64, host, tag, typ string, payload []byte) {
	m.lines = append(m.lines, fmt.Sprint(line, " ", at, " ", host, " ", tag, " ", typ, " ", string(payload)))
}
func (m *recorder) ObserveEvent(line, at int64, host, tag string, ev hosts.Event) {
	m.Observe(line, at, host, tag, ev.Type(), ev.AppendJSON(nil))
}
func (m *recorder) Resolved() bool        { return false }
func (m *recorder) Clone() engine.Monitor { c := *m; return &c }

// planted is the SWIM kind with its codec replaced.
type planted struct {
	hosts.Kind
	codec hosts.Codec
}

func (k planted) Codec() hosts.Codec { return k.codec }
func (k planted) DownState() string {
	return swimhost.Kind.(hosts.Restartable).DownState()
}
func (k planted) RestartState() string {
	return swimhost.Kind.(hosts.Restartable).RestartState()
}

// alteringCodec hands over what the real codec does, but changes the seq
// of its every 97th message with one: a planted difference from the bytes.
type alteringCodec struct {
	hosts.HandingCodec
	n *int
}

func (c alteringCodec) Handoff(msg any, into any) (any, int, error) {
	v, size, err := c.HandingCodec.Handoff(msg, into)
	if m, ok := v.(*swim.Message); ok && m.Seq != 0 {
		if *c.n++; *c.n%97 == 0 {
			m.Seq++
		}
	}
	return v, size, err
}

// sharingCodec hands the receiver the sender's own message: its Updates
// are the node's sent-updates array, which the node reuses on its next
// call (swim.Node.ReuseSentUpdates).
type sharingCodec struct{ hosts.HandingCodec }

func (c sharingCodec) Handoff(msg any, into any) (any, int, error) {
	_, size, err := c.HandingCodec.Handoff(msg, into)
	return msg, size, err
}

// handoffDiffers runs seeds of property prop twice, headless through reg
// (its messages handed over as values) and serialised through the real
// kind (their bytes encoded and decoded), step by step, and returns the
// first difference: a record, or a host's state as its Inspect shows it
// (its accusations and broadcast queue), compared every 256 steps and at
// the end. "" if there is none.
func handoffDiffers(t *testing.T, prop string, seeds int, reg *hosts.Registry) string {
	t.Helper()
	real := hosts.NewRegistry(swimhost.Kind)
	p, err := property.LoadLibrary(prop, real)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(seeds) {
		sc, err := p.Scenario(seed, real)
		if err != nil {
			t.Fatal(err)
		}
		var typed, wire recorder
		a, err := engine.New(sc, reg, engine.Options{Monitor: &typed, Headless: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := engine.New(sc, real, engine.Options{Monitor: &wire})
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; ; step++ {
			ia, ib := a.Step(), b.Step()
			if ia != ib {
				return fmt.Sprintf("seed %d step %d: %+v, from the bytes %+v", seed, step, ia, ib)
			}
			if n := len(typed.lines); n != len(wire.lines) || n > 0 && typed.lines[n-1] != wire.lines[n-1] {
				for i := range min(n, len(wire.lines)) {
					if typed.lines[i] != wire.lines[i] {
						return fmt.Sprintf("seed %d record %d:\n%s\nfrom the bytes:\n%s", seed, i+1, typed.lines[i], wire.lines[i])
					}
				}
				return fmt.Sprintf("seed %d step %d: %d records, from the bytes %d", seed, step, n, len(wire.lines))
			}
			if step%256 == 0 || ia.Done {
				for i := range sc.Peers {
					if sa, sb := a.Inspect(i, 1<<20), b.Inspect(i, 1<<20); string(sa) != string(sb) {
						return fmt.Sprintf("seed %d step %d: %s holds\n%s\nfrom the bytes:\n%s", seed, step, sc.Peers[i].ID, sa, sb)
					}
				}
			}
			if ia.Done {
				break
			}
		}
	}
	return ""
}

// TestHandoff_IsTheBytePath: a headless run, which hands each SWIM
// message to its receiver as a value (hosts.HandingCodec), makes every
// record and leaves every host in the state a serialised run does, which
// encodes each message and decodes its bytes, over seeds of the legacy
// and the bounded flap; and a planted difference in what is handed over,
// or a receiver handed the sender's own updates array, is caught.
func TestHandoff_IsTheBytePath(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 3
	}
	codec := swimhost.Kind.Codec().(hosts.HandingCodec)
	for _, prop := range []string{"gossip_flap_legacy", "gossip_flap"} {
		t.Run(prop, func(t *testing.T) {
			if d := handoffDiffers(t, prop, seeds, hosts.NewRegistry(swimhost.Kind)); d != "" {
				t.Fatalf("the handoff differs from the bytes: %s", d)
			}
			n := 0
			for _, c := range []struct {
				name  string
				codec hosts.Codec
			}{{"altered", alteringCodec{codec, &n}}, {"shared", sharingCodec{codec}}} {
				d := handoffDiffers(t, prop, seeds, hosts.NewRegistry(planted{swimhost.Kind, c.codec}))
				if d == "" {
					t.Errorf("a %s handoff went unnoticed", c.name)
				}
				t.Logf("%s: %.300s", c.name, d)
			}
		})
	}
}
