package screen

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// newSession opens a session at step 0 on the library's scenario name,
// with the built-in kinds.
func newSession(t *testing.T, name string) (*debugger.Session, *scenarios.Scenario) {
	t.Helper()
	sc, err := scenarios.Resolve(name, builtin.Registry())
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	s, err := debugger.NewSession(sc, builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, sc
}

// The queue pane says what each delivery carries (its message, named by
// the kind's codec hook, and its id, which names its message_sent) and
// what each timer is for.
func TestQueue_SaysWhatEachEntryCarries(t *testing.T) {
	s, sc := newSession(t, "reproduction/gossip_flap")
	f, err := Land(s, 2072, ViewParams{BandHi: len(sc.Peers)})
	if err != nil {
		t.Fatal(err)
	}
	var deliver, timer int
	for _, q := range f.queue {
		switch q.Kind {
		case "Deliver":
			deliver++
			if q.What == "" || !strings.HasPrefix(q.ID, q.From+"#") {
				t.Errorf("delivery without its message or id: %+v", q)
			}
			if _, err := debugger.ParseQuery("type=message_sent id=" + q.ID); err != nil {
				t.Errorf("id %q is not searchable: %v", q.ID, err)
			}
			line := queueLine(&q, true)
			if !strings.Contains(line, "← "+q.ID+" "+q.What) {
				t.Errorf("queue line %q lacks %q", line, q.ID+" "+q.What)
			}
		case "Timer":
			timer++
			if q.What == "" {
				t.Errorf("timer without a purpose: %+v", q)
			}
		}
	}
	if deliver == 0 || timer == 0 {
		t.Fatalf("%d deliveries and %d timers queued at step 2072: the test shows nothing", deliver, timer)
	}
}

// At the end of a run the header's verdict counts are the ones --batch
// writes: both come from the same evaluator over the same records.
func TestEndOfRun_VerdictsMatchBatch(t *testing.T) {
	for _, name := range []string{"reproduction/gossip_flap", "reference/echo_parity"} {
		s, sc := newSession(t, name)
		res, err := batch.Run(sc, builtin.Registry(), batch.Config{Out: filepath.Join(t.TempDir(), "b")})
		if err != nil {
			t.Fatal(err)
		}
		pass, fail, inc := res.Counts()
		s.Continue(nil)
		f, err := Land(s, s.Timeline().Engine().Index(), ViewParams{BandHi: len(sc.Peers)})
		if err != nil {
			t.Fatal(err)
		}
		if f.pass != pass || f.fail != fail || f.inconclusive != inc || f.open != 0 {
			t.Errorf("%s: stepper %d/%d/%d (open %d), batch %d/%d/%d", name, f.pass, f.fail, f.inconclusive, f.open, pass, fail, inc)
		}
		if f.digest != res.Digest {
			t.Errorf("%s: stepper digest %s, batch %s", name, f.digest, res.Digest)
		}
	}
}

// A far jump that lands on a checkpoint re-executes from an earlier one
// so the log pane is full.
func TestLand_RefillsTheLogAfterAFarJump(t *testing.T) {
	s, _ := newSession(t, "reference/echo_parity")
	s.Continue([]debugger.Breakpoint{{Kind: debugger.BreakStep, N: 9000}})
	s.ForgetRecords()
	vp := ViewParams{BandLo: 0, BandHi: 6}
	f, err := Land(s, 8001, vp) // just past the checkpoint at 8000
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range f.log {
		if l.Bytes == nil {
			t.Fatalf("record %d missing from the frame (window %d..%d)", l.N, f.logFrom, f.records)
		}
	}
	if len(f.log) != LogWindow {
		t.Fatalf("window holds %d records, want %d", len(f.log), LogWindow)
	}
}
