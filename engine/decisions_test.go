package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// Direct tests of engine decisions that the whole-run tests only cover by
// accident: each builds a two-peer script scenario, places one mutation or
// snapshot at an instant read off the queue of an identical fresh engine,
// and checks the records step by step.

// step is one dispatched queue entry and the event lines it emitted.
type step struct {
	info  StepInfo
	lines []string
}

// steps runs e to the end and returns every step with its records.
func steps(t *testing.T, e *Engine, w *lines) []step {
	t.Helper()
	var out []step
	seen := 0
	for !e.Done() {
		info := e.Step()
		all := strings.SplitAfter(w.buf.String(), "\n")
		all = all[:len(all)-1] // after the last newline: empty
		out = append(out, step{info: info, lines: all[seen:]})
		seen = len(all)
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dialScenario is p01 sending "hi" to p00 on every tick over edges that
// start Cold and pay a 50 ms dial penalty, with no loss or jitter.
func dialScenario() *scenarios.Scenario {
	sc := scriptScenario(map[string]any{}, 1_000_000_000)
	sc.Peers[1].KindConfig = map[string]any{"send_to": "p00"}
	p := network.Policy{LatencyNs: 1_000_000, BandwidthBps: 1 << 30, ColdDialPenaltyNs: 50_000_000,
		CacheWarmAfterNs: 10_000_000, CacheInvalidateAfterIdleNs: 10_000_000_000}
	sc.DefaultLink = p
	for i := range sc.Links {
		sc.Links[i].Policy = p
	}
	return sc
}

// TestDeliver_DialOutcomeFailedWhenInvalidatedInFlight_5_4: a delivery
// that paid the cold-dial penalty and is cut in flight by a Partition
// reports dial_outcome "failed" when it would have arrived — not when it
// was cut, and never "ok" — and is not handed to the receiver (DESIGN §4
// "DialOutcome happens at arrival time").
func TestDeliver_DialOutcomeFailedWhenInvalidatedInFlight_5_4(t *testing.T) {
	probe := mustEngine(t, dialScenario(), Options{})
	var sendAt, arriveAt int64 = -1, -1
	for !probe.Done() && arriveAt < 0 {
		info := probe.Step()
		if info.Kind != "Tick" || info.Host != "p01" {
			continue
		}
		sendAt = info.At
		for _, q := range probe.Queue(probe.QueueLen()) {
			if q.Kind == "Deliver" && q.From == "p01" {
				arriveAt = q.At
			}
		}
	}
	if arriveAt < sendAt+50_000_000 {
		t.Fatalf("p01's first send at %d arrives at %d: it did not pay the dial penalty", sendAt, arriveAt)
	}
	cutAt := sendAt + 10_000_000 // in flight: sent, dialing, not yet arrived

	sc := dialScenario()
	sc.Mutations = []network.Mutation{{Kind: network.Partition, At: cutAt, PeersA: []string{"p01"}, PeersB: []string{"p00"}}}
	var w lines
	run := steps(t, mustEngine(t, sc, Options{Writer: &w}), &w)

	var dialStart, drop, outcome []string
	for _, s := range run {
		for _, ln := range s.lines {
			switch {
			case strings.Contains(ln, `"type":"dial_start","from":"p01","to":"p00"`):
				dialStart = append(dialStart, ln)
			case strings.Contains(ln, `"type":"drop_on_delivery","from":"p01","to":"p00"`):
				drop = append(drop, ln)
			case strings.Contains(ln, `"type":"dial_outcome","from":"p01","to":"p00"`):
				outcome = append(outcome, ln)
				if s.info.Kind != "Deliver" || s.info.At != arriveAt {
					t.Errorf("dial_outcome emitted by a %s step at %d, want the Deliver step at its arrival %d", s.info.Kind, s.info.At, arriveAt)
				}
			case strings.Contains(ln, `"host_id":"p00","kind_tag":"script","event":{"type":"recv"`):
				t.Errorf("the cut delivery reached p00: %s", ln)
			}
		}
	}
	at := func(ln string) int64 { var v int64; fmtSscan(ln, &v); return v }
	if len(dialStart) != 1 || at(dialStart[0]) != sendAt {
		t.Fatalf("dial_start p01→p00: %q, want one at %d", dialStart, sendAt)
	}
	if len(drop) != 1 || at(drop[0]) != cutAt || !strings.Contains(drop[0], `"reason":"partitioned"`) {
		t.Fatalf("drop_on_delivery p01→p00: %q, want one at the partition %d", drop, cutAt)
	}
	want := fmt.Sprintf(`{"virtual_time_ns":%d,"host_id":"p01","kind_tag":"engine","event":{"type":"dial_outcome","from":"p01","to":"p00","outcome":"failed"}}`, arriveAt)
	if len(outcome) != 1 || strings.TrimSpace(outcome[0]) != want {
		t.Fatalf("dial_outcome p01→p00:\n got %q\nwant [%s]", outcome, want)
	}
}

// TestSendFailed_QueuedAtNowAfterWhatIsAlreadyQueued_4_6: a send the
// network refuses is recorded as drop_on_send inside the sender's step,
// and its SendFailed is a queue entry at that same instant for the sender
// — never a nested Recv — so it pops after every entry already queued for
// that instant (here a snapshot request queued when the run began).
func TestSendFailed_QueuedAtNowAfterWhatIsAlreadyQueued_4_6(t *testing.T) {
	lossy := func() *scenarios.Scenario {
		sc := scriptScenario(map[string]any{"send_to": "p01"}, 300_000_000)
		for i := range sc.Links {
			if sc.Links[i].From == "p00" {
				sc.Links[i].Policy.LossProbPPM = 1_000_000 // every send p00→p01 is lost
			}
		}
		return sc
	}
	var tick int64 = -1
	for _, q := range mustEngine(t, lossy(), Options{}).Queue(8) {
		if q.Kind == "Tick" && q.Host == "p00" {
			tick = q.At
			break
		}
	}
	if tick < 0 {
		t.Fatal("no first tick for p00 in the queue")
	}
	sc := lossy()
	sc.Snapshots = []int64{tick}
	var w lines
	run := steps(t, mustEngine(t, sc, Options{Writer: &w}), &w)

	var at []string // the steps at p00's first tick, in pop order
	for i, s := range run {
		if s.info.At != tick {
			continue
		}
		at = append(at, s.info.Kind+" "+s.info.Host)
		text := strings.Join(s.lines, "")
		switch s.info.Kind {
		case "Tick":
			if !strings.Contains(text, `"host_id":"p00","kind_tag":"engine","event":{"type":"drop_on_send","from":"p00","to":"p01","reason":"lossy"}`) {
				t.Errorf("step %d (p00's tick) has no drop_on_send:\n%s", i, text)
			}
			if strings.Contains(text, `"send_failed"`) {
				t.Errorf("step %d: SendFailed was delivered inside the sender's tick (a nested call):\n%s", i, text)
			}
		case "SendFailed":
			want := fmt.Sprintf(`{"virtual_time_ns":%d,"host_id":"p00","kind_tag":"script","event":{"type":"send_failed"`, tick)
			if !strings.HasPrefix(text, want) {
				t.Errorf("step %d (SendFailed) records %q, want p00's send_failed at %d", i, text, tick)
			}
		}
	}
	if want := []string{"Tick p00", "Snapshot ", "SendFailed p00"}; strings.Join(at, ", ") != strings.Join(want, ", ") {
		t.Fatalf("steps at %d: %q, want %q", tick, at, want)
	}
}

// TestTimer_StaleTokenIgnored_4_6: a timer armed before its host was
// killed does not fire once the host is resurrected (preserve_state=true:
// the same host, a new generation), though the host's new timers do.
// Tokens are the tick count, which a preserved host keeps counting, so a
// timer with a token from before the kill is one of the old generation.
func TestTimer_StaleTokenIgnored_4_6(t *testing.T) {
	const kill, resurrect, delay = 400_000_000, 420_000_000, 150_000_000
	sc := scriptScenario(map[string]any{"timer_ns": int64(delay)}, 1_000_000_000)
	sc.Mutations = []network.Mutation{
		{Kind: network.PeerKill, At: kill, Peer: "p00"},
		{Kind: network.PeerResurrect, At: resurrect, Peer: "p00", PreserveState: true},
	}
	var w lines
	run := steps(t, mustEngine(t, sc, Options{Writer: &w}), &w)

	var lastOld int64 // the last tick before the kill
	straddle := false // an old timer was due after the resurrection
	var fired, late []string
	for _, s := range run {
		for _, ln := range s.lines {
			var n int64
			if i := strings.Index(ln, `"host_id":"p00","kind_tag":"script","event":{"type":"tick","n":`); i >= 0 && s.info.At < kill {
				fmt.Sscanf(ln[i+len(`"host_id":"p00","kind_tag":"script","event":{"type":"tick","n":`):], "%d", &n)
				lastOld = n
				straddle = straddle || s.info.At+delay > resurrect
			}
			if i := strings.Index(ln, `"host_id":"p00","kind_tag":"script","event":{"type":"timer","n":`); i >= 0 {
				fmt.Sscanf(ln[i+len(`"host_id":"p00","kind_tag":"script","event":{"type":"timer","n":`):], "%d", &n)
				if s.info.At > resurrect {
					if n <= lastOld {
						late = append(late, strings.TrimSpace(ln))
					} else {
						fired = append(fired, strings.TrimSpace(ln))
					}
				}
			}
		}
	}
	if !straddle {
		t.Fatalf("no timer armed before the kill at %d was due after the resurrection at %d: the test proves nothing", kill, resurrect)
	}
	if len(late) > 0 {
		t.Errorf("timers of the generation before the kill fired after the resurrection:\n%s", strings.Join(late, "\n"))
	}
	if len(fired) == 0 {
		t.Error("the resurrected host's own timers never fired")
	}
}
