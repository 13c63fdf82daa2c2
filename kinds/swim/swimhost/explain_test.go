package swimhost_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/swim/swimhost"
	"github.com/detsim/detsim/scenarios"
)

// record is what a chain's link must agree with.
type record struct {
	typ, host string
	at        int64
}

// runIndex runs name with seed into a bundle and reads it back into an
// index as `detsim why` does, returning every record by line.
func runIndex(t testing.TB, name string, seed uint64) (*causal.Index, []record) {
	t.Helper()
	reg := builtin.Registry()
	sc, err := scenarios.Resolve(name, reg)
	if err != nil {
		t.Fatal(err)
	}
	sc.Seed = seed
	dir := filepath.Join(t.TempDir(), "b")
	if _, err := batch.Run(sc, reg, batch.Config{Out: dir, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	return readIndex(t, dir)
}

// readIndex reads the bundle dir into an index as `detsim why` does,
// returning every record by line (recs[0] is no record).
func readIndex(t testing.TB, dir string) (*causal.Index, []record) {
	t.Helper()
	ix := causal.NewIndex(0, swimhost.Kind.(causal.Explains).Explainer().Keeps()...)
	recs := []record{{}}
	if err := bundle.ReadEvents(dir, func(line int, rec bundle.EventRecord) error {
		recs = append(recs, record{rec.Type, rec.HostID, rec.VirtualTimeNs})
		ix.AddRecord(int64(line), 0, rec.VirtualTimeNs, rec.HostID, rec.Type, rec.Event)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ix, recs
}

// checkChain holds a chain to its contract: it starts at the record
// asked about, every link is a real record of the type, host and time it
// claims, the chain (depth 0) goes back in time, and it ends at exactly
// one origin.
func checkChain(c causal.Chain, target int64, recs []record) error {
	if len(c.Links) == 0 || c.Links[0].Line != target {
		return fmt.Errorf("does not start at L%d: %+v", target, c.Links)
	}
	if !c.Complete {
		return fmt.Errorf("stops short: %s", c.Note)
	}
	origins, lastMain := 0, -1
	var prev int64 = 1 << 62
	for i, l := range c.Links {
		if l.Line < 1 || l.Line >= int64(len(recs)) {
			return fmt.Errorf("link %d: L%d is no record", i, l.Line)
		}
		r := recs[l.Line]
		if r.typ != l.Type || r.host != l.Host || r.at != l.At {
			return fmt.Errorf("link %d: L%d is %s on %q at %d, the link says %s on %q at %d", i, l.Line, r.typ, r.host, r.at, l.Type, l.Host, l.At)
		}
		if l.Origin {
			origins++
		}
		if l.Depth == 0 {
			if l.At > prev {
				return fmt.Errorf("link %d (L%d) is later than the link it explains", i, l.Line)
			}
			prev, lastMain = l.At, i
		}
	}
	if origins != 1 || !c.Links[lastMain].Origin {
		return fmt.Errorf("%d origins; the last link of the chain is %+v", origins, c.Links[lastMain])
	}
	return nil
}

// Every state transition of a run, explained from the records alone, is
// a chain of real records that ends at one origin event: over the
// reproduction (legacy queue: stale suspicions passed on for minutes),
// its fix, and the failure-mode and topology scenarios, each over
// several seeds.
func TestExplain_EveryChainEndsAtAnOriginOfRealRecords(t *testing.T) {
	names := []string{"reproduction/gossip_flap", "reproduction/gossip_flap_fixed", "topology/partition_heal", "topology/churn", "topology/rolling_restart", "failure_modes/semi_detached", "failure_modes/overloaded_prober_swim", "lifeguard/slow_members_swim"}
	seeds := []uint64{1, 2, 42}
	if testing.Short() {
		names, seeds = names[:2], seeds[2:]
	}
	x := swimhost.Kind.(causal.Explains).Explainer()
	for _, name := range names {
		for _, seed := range seeds {
			ix, recs := runIndex(t, name, seed)
			checked := 0
			kinds := map[string]int{}
			for line := int64(1); line < int64(len(recs)); line++ {
				if recs[line].typ != "state_transition" {
					continue
				}
				r, ok := ix.At(line)
				if !ok || r.Str("reason") == "initial" {
					continue
				}
				c, ok := x.Explain(ix, r)
				if !ok {
					t.Fatalf("%s seed %d: L%d not explained", name, seed, line)
				}
				if err := checkChain(c, line, recs); err != nil {
					t.Fatalf("%s seed %d: the chain of L%d (%s): %v\n%s", name, seed, line, r.Str("reason"), err, show(c))
				}
				checked++
				kinds[r.Str("reason")]++
			}
			t.Logf("%s seed %d: %d chains (%v)", name, seed, checked, kinds)
		}
	}
}

// The flap's first suspicion of orch, explained: gossip passed from host
// to host back to a probe that failed because its ping, or its ack, sat
// behind big messages on the thin link; and the refutations orch made.
func TestExplain_TheFlapGoesBackToALateProbe(t *testing.T) {
	ix, recs := runIndex(t, "reproduction/gossip_flap", 42)
	x := swimhost.Kind.(causal.Explains).Explainer()
	var target causal.Rec
	for line := int64(1); line < int64(len(recs)); line++ {
		r, ok := ix.At(line)
		if ok && r.Type() == "state_transition" && r.Str("subject") == "orch" && r.Str("to") == "suspect" && r.Str("reason") == "gossip" {
			target = r
			break
		}
	}
	if !target.Valid() {
		t.Fatal("no gossiped suspicion of orch in the reproduction")
	}
	c, _ := x.Explain(ix, target)
	text := show(c)
	if err := checkChain(c, target.Line(), recs); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"received", "sent", "probe", "timed out", "B,"} {
		if !strings.Contains(text, want) {
			t.Errorf("the chain does not say %q:\n%s", want, text)
		}
	}
	t.Logf("\n%s", text)
}

func show(c causal.Chain) string {
	var b strings.Builder
	for _, l := range c.Links {
		fmt.Fprintf(&b, "%s L%d %d %s %s | %s (origin %v)\n", strings.Repeat("  ", l.Depth), l.Line, l.At, l.Host, l.Text, l.Why, l.Origin)
	}
	return b.String()
}

// A recording from a real network writes receives with no message id
// (the wire carries none) and no kernel drops. The chain pairs a send
// with the receive that can only be it, and says "not recorded" rather
// than "still in flight" when none can be.
func TestExplain_ReceivesWithoutIDsArePairedOrSaidUnseen(t *testing.T) {
	const ms = int64(1_000_000)
	type ev struct {
		at         int64
		host, json string
	}
	ping := func(at int64, id string) ev {
		return ev{at, "a", `{"type":"message_sent","peer":"b","message":"ping","bytes":300,"updates":1,"id":"` + id + `","seq":7}`}
	}
	pingIn := ev{0, "b", `{"type":"message_received","peer":"a","message":"ping","bytes":300,"updates":1,"seq":7}`}
	ack := ev{0, "b", `{"type":"message_sent","peer":"a","message":"ack","bytes":90,"updates":0,"id":"b#1","seq":7}`}
	ackIn := ev{0, "a", `{"type":"message_received","peer":"b","message":"ack","bytes":90,"updates":0,"seq":7}`}
	at := func(e ev, t int64) ev { e.at = t; return e }
	probe := ev{0, "a", `{"type":"probe_sent","target":"b","seq":7,"mode":"direct"}`}
	timeout := ev{500 * ms, "a", `{"type":"probe_timed_out","target":"b","seq":7,"mode":"direct"}`}
	suspect := ev{500 * ms, "a", `{"type":"state_transition","observer":"a","subject":"b","from":"alive","to":"suspect","incarnation":0,"reason":"probe_failed"}`}
	cases := []struct {
		name string
		evs  []ev
		want string
	}{
		{"no receive", []ev{{0, "b", `{"type":"message_received","peer":"c","message":"ack","bytes":90,"updates":0,"seq":3}`}, probe, ping(0, "a#1"), timeout, suspect},
			"no receive of its ping a#1 is recorded"},
		{"ping late", []ev{probe, ping(0, "a#1"), timeout, at(pingIn, 600*ms), suspect},
			"arrived after 600.0 ms, 100.0 ms after the probe timeout"},
		{"ack lost", []ev{probe, ping(0, "a#1"), at(pingIn, 100*ms), at(ack, 100*ms), timeout, suspect},
			"no receive of its ack b#1 is recorded"},
		{"ack late", []ev{probe, ping(0, "a#1"), at(pingIn, 100*ms), at(ack, 100*ms), timeout, suspect, at(ackIn, 700*ms)},
			"the ack b#1 arrived 200.0 ms after the end of the probe interval"},
		// Two like pings and one receive: it may be either's.
		{"two like sends", []ev{probe, ping(0, "a#1"), ping(10*ms, "a#2"), at(pingIn, 100*ms), timeout, suspect},
			"no receive of its ping a#2 is recorded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := swimhost.Kind.(causal.Explains).Explainer()
			ix := causal.NewIndex(0, x.Keeps()...)
			var target causal.Rec
			for i, e := range tc.evs {
				typ := e.json[len(`{"type":"`):strings.Index(e.json, `",`)]
				ix.AddRecord(int64(i+1), 0, e.at, e.host, typ, []byte(e.json))
			}
			for i := range tc.evs {
				if r, ok := ix.At(int64(i + 1)); ok && r.Type() == "state_transition" {
					target = r
				}
			}
			c, ok := x.Explain(ix, target)
			if !ok {
				t.Fatal("not explained")
			}
			if got := show(c); !strings.Contains(got, tc.want) {
				t.Fatalf("want %q in\n%s", tc.want, got)
			}
		})
	}
}

// On the testbed's recordings (real processes, receives without ids)
// every transition's chain is made of real records and goes back to an
// origin, the sends paired with their receives by what they carry.
func TestExplain_TestbedRecordingsChainToAnOrigin(t *testing.T) {
	for _, name := range []string{"gossip_flap", "n5_kill", "n3_lossy"} {
		dir := filepath.Join("..", "..", "..", "testdata", "calibration", name)
		x := swimhost.Kind.(causal.Explains).Explainer()
		ix, recs := readIndex(t, dir)
		checked, short := 0, map[string]int{}
		for line := int64(1); line < int64(len(recs)); line++ {
			r, ok := ix.At(line)
			if !ok || r.Type() != "state_transition" || r.Str("reason") == "initial" {
				continue
			}
			c, ok := x.Explain(ix, r)
			if !ok {
				t.Fatalf("%s: L%d not explained", name, line)
			}
			if !c.Complete {
				short[c.Note]++
				continue
			}
			if err := checkChain(c, line, recs); err != nil {
				t.Fatalf("%s: the chain of L%d: %v\n%s", name, line, err, show(c))
			}
			checked++
		}
		// The corpus is fixed: a recording added to it whose chains stop
		// short is looked at, not waved through.
		t.Logf("%s: %d complete chains", name, checked)
		if checked == 0 || len(short) > 0 {
			t.Fatalf("%s: %d chains reached their origin; stopped short: %v", name, checked, short)
		}
	}
}

// How fast a link moves bytes is read from the quickest small message
// on that link in the whole run, however many the sender sent to others
// since: before, the chain looked back over the sender's last 512 sends
// only, and a busy sender's link went unmeasured.
func TestExplain_PaceReadsTheWholeLink(t *testing.T) {
	const ms = int64(1_000_000)
	x := swimhost.Kind.(causal.Explains).Explainer()
	ix := causal.NewIndex(0, x.Keeps()...)
	line := int64(0)
	add := func(at int64, host, typ, json string) {
		line++
		ix.AddRecord(line, 0, at, host, typ, []byte(`{"type":"`+typ+`",`+json+`}`))
	}
	add(1*ms, "b", "message_sent", `"peer":"a","message":"ack","bytes":100,"updates":0,"id":"b#1","seq":1`)
	add(11*ms, "a", "message_received", `"peer":"b","message":"ack","bytes":100,"updates":0,"id":"b#1","seq":1`)
	for i := range 600 {
		add(20*ms+int64(i), "b", "message_sent", fmt.Sprintf(`"peer":"c","message":"ack","bytes":100,"updates":0,"id":"b#%d","seq":1`, i+2))
	}
	t0 := 1000 * ms
	add(t0, "a", "probe_sent", `"target":"b","seq":7,"mode":"direct"`)
	add(t0, "a", "message_sent", `"peer":"b","message":"ping","bytes":100,"updates":0,"id":"a#1","seq":7`)
	add(t0+100*ms, "b", "message_received", `"peer":"a","message":"ping","bytes":100,"updates":0,"id":"a#1","seq":7`)
	add(t0+100*ms, "b", "message_sent", `"peer":"a","message":"ack","bytes":4000,"updates":0,"id":"b#700","seq":7`)
	add(t0+500*ms, "a", "probe_timed_out", `"target":"b","seq":7,"mode":"direct"`)
	add(t0+500*ms, "a", "state_transition", `"observer":"a","subject":"b","from":"alive","to":"suspect","incarnation":0,"reason":"probe_failed"`)
	target := line
	add(t0+900*ms, "a", "message_received", `"peer":"b","message":"ack","bytes":4000,"updates":0,"id":"b#700","seq":7`)
	r, _ := ix.At(target)
	c, ok := x.Explain(ix, r)
	if !ok {
		t.Fatal("not explained")
	}
	// 3 900 B more took 790 ms longer than the 100 B ack b#1.
	if want := "the link moves about 4 936 B/s (a 100 B ack took 10.0 ms on it, b#1)"; !strings.Contains(show(c), want) {
		t.Fatalf("want %q in\n%s", want, show(c))
	}
}

// BenchmarkExplain_EveryChain explains every transition of the legacy
// flap, as the page's and the test's sweeps over a bundle do.
func BenchmarkExplain_EveryChain(b *testing.B) {
	ix, recs := runIndex(b, "failure_modes/overloaded_prober_swim", 1)
	x := swimhost.Kind.(causal.Explains).Explainer()
	for b.Loop() {
		ix.Forget()
		for line := int64(1); line < int64(len(recs)); line++ {
			if r, ok := ix.At(line); ok && r.Type() == "state_transition" && r.Str("reason") != "initial" {
				x.Explain(ix, r)
			}
		}
	}
}
