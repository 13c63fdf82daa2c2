package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

func TestQueue_PopsByTimeThenEnqueueOrder_4_1(t *testing.T) {
	var q queue
	seq := uint64(0)
	push := func(at int64, host int32) {
		q.push(entry{at: at, seq: seq, host: host})
		seq++
	}
	push(30, 0)
	push(10, 1)
	push(30, 2)
	push(10, 3)
	push(20, 4)
	var got []int32
	for q.len() > 0 {
		got = append(got, q.pop().host)
	}
	if want := []int32{1, 3, 4, 0, 2}; !slices.Equal(got, want) {
		t.Fatalf("pop order %v, want %v", got, want)
	}
}

func TestRun_SameSeedSameDigest_7(t *testing.T) {
	sc := meshScenario("echo", 5, lossyPolicy, 3_000_000_000)
	run := func(seed uint64) (string, int64) {
		s := *sc
		s.Seed = seed
		e := mustEngine(t, &s, Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		return e.Digest(), e.Records()
	}
	d1, n1 := run(1)
	d2, n2 := run(1)
	d3, _ := run(2)
	if d1 != d2 || n1 != n2 {
		t.Fatalf("same seed gave %s/%d and %s/%d", d1, n1, d2, n2)
	}
	if d1 == d3 {
		t.Fatalf("seeds 1 and 2 gave the same digest %s", d1)
	}
	if n1 < 1000 {
		t.Fatalf("only %d records: the mesh is not exercising the engine", n1)
	}
}

func TestRecords_NondecreasingTimeAndEveryEngineEvent_4_7(t *testing.T) {
	sc := meshScenario("echo", 4, lossyPolicy, 2_000_000_000)
	sc.Mutations = []network.Mutation{
		{Kind: network.Partition, At: 500_000_000, PeersA: []string{"p00"}, PeersB: []string{"p01", "p02"}},
		{Kind: network.Heal, At: 900_000_000},
		{Kind: network.PeerKill, At: 1_000_000_000, Peer: "p03"},
		{Kind: network.PeerResurrect, At: 1_500_000_000, Peer: "p03"},
	}
	var w lines
	e := mustEngine(t, sc, Options{Writer: &w})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ty := range w.types() {
		seen[ty]++
	}
	for _, ty := range []string{"ping_sent", "pong_received", "drop_on_send", "drop_on_delivery", "cache_state_change", "dial_start", "dial_outcome", "mutation"} {
		if seen[ty] == 0 {
			t.Errorf("no %s record in the run (saw %v)", ty, seen)
		}
	}
	last := int64(-1)
	for i, ln := range strings.Split(strings.TrimSpace(w.buf.String()), "\n") {
		var at int64
		if _, err := fmtSscan(ln, &at); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if at < last {
			t.Fatalf("line %d: time %d after %d", i+1, at, last)
		}
		last = at
	}
}

func TestStepAPI_IndexNowQueue(t *testing.T) {
	e := mustEngine(t, meshScenario("echo", 3, lossyPolicy, 1_000_000_000), Options{})
	q := e.Queue(3)
	if len(q) != 3 || q[0].Kind != "Tick" {
		t.Fatalf("initial queue %+v: want the three first ticks", q)
	}
	info := e.Step()
	if info.Index != 1 || e.Index() != 1 || info.At != q[0].At || e.Now() != q[0].At || info.Host != q[0].Host {
		t.Fatalf("first step %+v does not match queue head %+v", info, q[0])
	}
	for _, x := range q {
		if x.At < 0 || x.At >= 100_000_000 {
			t.Fatalf("first tick at %d, want an offset in [0, period)", x.At)
		}
	}
	if q[0].At == q[1].At && q[1].At == q[2].At {
		t.Fatalf("all first ticks at %d: offsets are not seed-derived", q[0].At)
	}
}

// gotoMatchesFresh runs a timeline of sc, checkpointed every `every`
// steps, to its end, then goes to 25 indexes drawn from seed and checks
// each against a fresh run stepped there: digest, time, records and the
// queue's head, and what same compares beyond them (nil for nothing). It
// returns the timeline, at its last Goto, and the run's last index.
func gotoMatchesFresh(t *testing.T, sc *scenarios.Scenario, every int64, seed uint64, same func(e, ref *Engine) bool) (*Timeline, int64) {
	t.Helper()
	fresh := func() (*Engine, error) { return New(sc, registry(), Options{}) }
	tl, err := NewTimeline(fresh, every)
	if err != nil {
		t.Fatal(err)
	}
	for !tl.Engine().Done() {
		tl.Step()
	}
	end := tl.Engine().Index()
	r := rand.New(rand.NewPCG(seed, seed+1))
	for n := 0; n < 25; n++ {
		i := r.Int64N(end + 1)
		if got, err := tl.Goto(i); err != nil || got != i {
			t.Fatalf("Goto(%d) = %d, %v", i, got, err)
		}
		ref := mustEngine(t, sc, Options{})
		for ref.Index() < i {
			ref.Step()
		}
		e := tl.Engine()
		if e.Digest() != ref.Digest() || e.Now() != ref.Now() || e.Records() != ref.Records() {
			t.Fatalf("Goto(%d): digest %s now %d, fresh run %s now %d", i, e.Digest(), e.Now(), ref.Digest(), ref.Now())
		}
		if !slices.Equal(e.Queue(40), ref.Queue(40)) || (same != nil && !same(e, ref)) {
			t.Fatalf("Goto(%d): differs from a fresh run", i)
		}
	}
	return tl, end
}

// TestGoto_EqualsFreshRun is the timeline's contract: for random i, going
// to i after running past it gives the digest and queue of a fresh run
// stepped to i.
func TestGoto_EqualsFreshRun(t *testing.T) {
	sc := meshScenario("echo", 4, lossyPolicy, 2_000_000_000)
	sc.Mutations = []network.Mutation{
		{Kind: network.PeerKill, At: 700_000_000, Peer: "p01"},
		{Kind: network.PeerResurrect, At: 1_100_000_000, Peer: "p01", PreserveState: true},
	}
	tl, end := gotoMatchesFresh(t, sc, 97, 1, nil)
	// Back from the end, then forward again, lands on the same digest.
	tl.Goto(end)
	final := tl.Engine().Digest()
	tl.Back()
	tl.Goto(end)
	if tl.Engine().Digest() != final {
		t.Fatal("back then forward changed the digest")
	}
}

func TestGoto_NoCheckpointsReexecutesFromSeed(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 500_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 0)
	tl.Goto(200)
	d := tl.Engine().Digest()
	tl.Goto(300)
	tl.Goto(200)
	if tl.Engine().Digest() != d || tl.Checkpoints() != 0 {
		t.Fatalf("re-execution from the seed diverged")
	}
	if got, _ := tl.Goto(1 << 40); got != tl.Engine().Index() || !tl.Engine().Done() {
		t.Fatalf("Goto past the end = %d, want the last index", got)
	}
}

func scriptScenario(cfgA map[string]any, dur int64) *scenarios.Scenario {
	sc := meshScenario("script", 2, network.Policy{LatencyNs: 1_000_000, BandwidthBps: 1 << 30}, dur)
	sc.Peers[0].KindConfig = cfgA
	return sc
}

func TestHalt_FromTickStopsTicksButNotDeliveries_4_3(t *testing.T) {
	sc := scriptScenario(map[string]any{"halt_tick": int64(2), "timer_ns": int64(10_000_000)}, 1_000_000_000)
	var w lines
	e := mustEngine(t, sc, Options{Writer: &w})
	e.Run()
	out := w.buf.String()
	if n := strings.Count(out, `"host_id":"p00","kind_tag":"script","event":{"type":"tick"`); n != 2 {
		t.Fatalf("p00 ticked %d times after halting on tick 2, want 2", n)
	}
	if n := strings.Count(out, `"host_id":"p00","kind_tag":"script","event":{"type":"timer"`); n != 2 {
		t.Fatalf("p00 got %d timers, want both it scheduled (recv still flows)", n)
	}
}

func TestHalt_FromRecvStopsDeliveries_4_3(t *testing.T) {
	sc := scriptScenario(map[string]any{"halt_recv": int64(1), "timer_ns": int64(10_000_000)}, 1_000_000_000)
	sc.Peers[1].KindConfig = map[string]any{"send_to": "p00"}
	var w lines
	e := mustEngine(t, sc, Options{Writer: &w})
	e.Run()
	out := w.buf.String()
	if n := strings.Count(out, `"host_id":"p00","kind_tag":"script"`); n != 2 {
		t.Fatalf("p00 recorded %d events, want its first tick and first recv only:\n%s", n, out)
	}
	if !strings.Contains(out, `"reason":"halted"`) {
		t.Fatal("deliveries to a recv-halted host are not recorded as drop_on_delivery")
	}
}

func TestPeerKill_DropsDeliveriesAndTimers_5_5(t *testing.T) {
	sc := scriptScenario(map[string]any{"timer_ns": int64(150_000_000)}, 1_000_000_000)
	sc.Peers[1].KindConfig = map[string]any{"send_to": "p00"}
	sc.Mutations = []network.Mutation{{Kind: network.PeerKill, At: 400_000_000, Peer: "p00"}}
	var w lines
	e := mustEngine(t, sc, Options{Writer: &w})
	e.Run()
	for _, ln := range strings.Split(w.buf.String(), "\n") {
		var at int64
		if ln == "" {
			continue
		}
		fmtSscan(ln, &at)
		if at > 400_000_000 && strings.Contains(ln, `"host_id":"p00","kind_tag":"script"`) {
			t.Fatalf("killed host acted after the kill: %s", ln)
		}
	}
	if !strings.Contains(w.buf.String(), `"reason":"peer_killed"`) {
		t.Fatal("no drop_on_delivery for messages to the killed peer")
	}
}

func TestPeerResurrect_FreshLifeDrawsFreshSubstream_5_5(t *testing.T) {
	for _, preserve := range []bool{false, true} {
		sc := scriptScenario(map[string]any{}, 1_000_000_000)
		sc.Mutations = []network.Mutation{
			{Kind: network.PeerKill, At: 300_000_000, Peer: "p00"},
			{Kind: network.PeerResurrect, At: 500_000_000, Peer: "p00", PreserveState: preserve},
		}
		e := mustEngine(t, sc, Options{})
		before := string(e.Hosts()[0].Snapshot)
		e.Run()
		v := e.Hosts()[0]
		after := string(v.Snapshot)
		drawBefore := before[strings.Index(before, `"draw"`):]
		drawAfter := after[strings.Index(after, `"draw"`):]
		if preserve {
			if v.Lives != 1 || drawBefore != drawAfter {
				t.Errorf("preserve_state=true built a new host (lives %d, %s → %s)", v.Lives, drawBefore, drawAfter)
			}
			if !strings.Contains(after, `"ticks":8`) && !strings.Contains(after, `"ticks":9`) {
				t.Errorf("preserved host kept counting from its old state? %s", after)
			}
		} else if v.Lives != 2 || drawBefore == drawAfter {
			t.Errorf("preserve_state=false: lives %d, draws %s → %s; want a fresh life with fresh draws", v.Lives, drawBefore, drawAfter)
		}
		if v.State != "running" {
			t.Errorf("resurrected host is %s", v.State)
		}
	}
}

func TestDownPeerStartsOnResurrect(t *testing.T) {
	sc := scriptScenario(map[string]any{}, 1_000_000_000)
	sc.Peers[0].InitialState = "down"
	sc.Mutations = []network.Mutation{{Kind: network.PeerResurrect, At: 500_000_000, Peer: "p00"}}
	e := mustEngine(t, sc, Options{})
	if v := e.Hosts()[0]; v.State != "down" || v.Snapshot != nil {
		t.Fatalf("down peer at start: %+v", v)
	}
	e.Run()
	if v := e.Hosts()[0]; v.State != "running" || !strings.Contains(string(v.Snapshot), `"ticks":5`) {
		t.Fatalf("after resurrect at 0.5s of 1s: %+v %s", v, v.Snapshot)
	}
}

func TestDecodeError_IsCountedEvent(t *testing.T) {
	sc := scriptScenario(map[string]any{}, 300_000_000)
	sc.Peers[1].KindConfig = map[string]any{"send_to": "p00", "bad": true}
	var w lines
	mustEngine(t, sc, Options{Writer: &w}).Run()
	if !strings.Contains(w.buf.String(), `"type":"decode_error","from":"p01","to":"p00","bytes":3,"error":"script: bad bytes","count":3`) {
		t.Fatalf("no counted decode_error:\n%s", w.buf.String())
	}
}

type fakeMonitor struct {
	seen, after int64
}

func (m *fakeMonitor) Observe(line, at int64, host, tag, typ string, payload []byte) {
	m.seen++
	if !strings.HasPrefix(string(payload), `{"type":"`+typ+`"`) {
		panic("payload is not the event object: " + string(payload))
	}
}
func (m *fakeMonitor) Resolved() bool { return m.seen >= m.after }
func (m *fakeMonitor) Clone() Monitor { c := *m; return &c }

func TestEarlyTermination_4_8(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 5_000_000_000)
	sc.EarlyTerminate = true
	e := mustEngine(t, sc, Options{Monitor: &fakeMonitor{after: 100}})
	e.Run()
	if !e.EarlyTerminated() || e.Records() < 100 || e.Records() > 110 {
		t.Fatalf("early termination: early=%v records=%d", e.EarlyTerminated(), e.Records())
	}
	sc.EarlyTerminate = false
	e = mustEngine(t, sc, Options{Monitor: &fakeMonitor{after: 100}})
	e.Run()
	if e.EarlyTerminated() {
		t.Fatal("terminated early without early_terminate_on_all_assertions_resolved")
	}
}

// typedMonitor records what a headless run hands it: each record's line,
// time, envelope and payload, the payload serialised here.
type typedMonitor struct{ lines []string }

func (m *typedMonitor) Observe(line, at int64, host, tag, typ string, payload []byte) {
	m.lines = append(m.lines, fmt.Sprint(line, at, host, tag, typ, string(payload)))
}
func (m *typedMonitor) ObserveEvent(line, at int64, host, tag string, ev hosts.Event) {
	m.Observe(line, at, host, tag, ev.Type(), ev.AppendJSON(nil))
}
func (m *typedMonitor) Resolved() bool { return false }
func (m *typedMonitor) Clone() Monitor { c := *m; return &c }

// TestHeadless_HandsTheMonitorEveryRecordUnserialised: a headless run
// hands its monitor the same records, lines and times a serialised run
// does, and keeps no digest; it refuses options that need the bytes.
func TestHeadless_HandsTheMonitorEveryRecordUnserialised(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 2_000_000_000)
	var serialised, headless typedMonitor
	a := mustEngine(t, sc, Options{Monitor: &serialised})
	a.Run()
	b := mustEngine(t, sc, Options{Monitor: &headless, Headless: true})
	b.Run()
	if !slices.Equal(serialised.lines, headless.lines) || len(headless.lines) == 0 || a.Records() != b.Records() {
		t.Fatalf("headless run differs: %d records, serialised %d", len(headless.lines), len(serialised.lines))
	}
	if b.Digest() != "" || a.Digest() == "" {
		t.Errorf("digests %q (headless) and %q", b.Digest(), a.Digest())
	}
	for _, o := range []Options{
		{Monitor: &fakeMonitor{}, Headless: true},
		{Headless: true},
		{Monitor: &typedMonitor{}, Headless: true, MaxBytes: 1},
		{Monitor: &typedMonitor{}, Headless: true, Writer: &lines{}},
	} {
		if _, err := New(sc, registry(), o); err == nil {
			t.Errorf("New(%+v) accepted a headless run it cannot serve", o)
		}
	}
}

func TestUnknownAction_Panics_3_2(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "unknown action") {
			t.Fatalf("recover() = %v, want an unknown-action panic", r)
		}
	}()
	e := mustEngine(t, scriptScenario(map[string]any{}, 1_000_000_000), Options{})
	e.actions(0, []hostsAction{{}}, true) // the zero Action: no variant
}

// reverseContinue is the debugger's reverse-continue over a bare
// timeline: ReverseSearch from the step before the current one, then a
// move to the hit (or step 0).
func reverseContinue(tl *Timeline, stop StopFunc) (bool, error) {
	found, _, err := tl.ReverseSearch(tl.Engine().Index()-1, stop, nil)
	if err != nil {
		return false, err
	}
	_, err = tl.Goto(max(found, 0))
	return found >= 0, err
}

func TestTimeline_ReverseSearchFindsPreviousHit(t *testing.T) {
	sc := meshScenario("echo", 4, lossyPolicy, 2_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 50)
	// Reference: every step at which a p02 tick was dispatched.
	ref := mustEngine(t, sc, Options{})
	var hits []int64
	for !ref.Done() {
		if info := ref.Step(); info.Kind == "Tick" && info.Host == "p02" {
			hits = append(hits, info.Index)
		}
	}
	isHit := func(_ int64, info StepInfo) bool { return info.Kind == "Tick" && info.Host == "p02" }
	tl.Goto(ref.Index())
	for k := len(hits) - 1; k >= 0; k-- {
		found, err := reverseContinue(tl, isHit)
		if err != nil || !found || tl.Engine().Index() != hits[k] {
			t.Fatalf("reverse-continue #%d: found=%v at %d, want %d", len(hits)-k, found, tl.Engine().Index(), hits[k])
		}
	}
	if found, _ := reverseContinue(tl, isHit); found || tl.Engine().Index() != 0 {
		t.Fatalf("past the first hit: found=%v index %d, want not found at 0", found, tl.Engine().Index())
	}
	// And forward again with Continue, in small budgets.
	for _, want := range hits[:3] {
		var info StepInfo
		hit := false
		for !hit && !tl.Engine().Done() {
			info, hit = tl.Continue(isHit, 7)
		}
		if info.Index != want {
			t.Fatalf("continue stopped at %d, want %d", info.Index, want)
		}
	}
}

// A reverse search paused after every interval and resumed finds the same
// hits as one run to the end: the stepper runs it in chunks.
func TestTimeline_ReverseSearchResumes(t *testing.T) {
	sc := meshScenario("echo", 4, lossyPolicy, 2_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 50)
	ref, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 50)
	isHit := func(_ int64, info StepInfo) bool { return info.Kind == "Tick" && info.Host == "p02" }
	end, _ := tl.Goto(1 << 40)
	ref.Goto(end)
	pauses := 0
	for u := end - 1; u >= 1; {
		found, next, err := tl.ReverseSearch(u, isHit, func() bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		if next > 0 {
			pauses++
			if next >= u || found != -1 {
				t.Fatalf("paused search: next %d from u %d, found %d", next, u, found)
			}
			u = next
			continue
		}
		want, _ := reverseContinue(ref, isHit)
		if (found >= 0) != want || found >= 0 && found != ref.Engine().Index() {
			t.Fatalf("resumed search found %d, one run found %v at %d", found, want, ref.Engine().Index())
		}
		if found < 0 {
			break
		}
		u = found - 1
	}
	if pauses == 0 {
		t.Fatal("the search never paused")
	}
}

func TestTimeline_CheckpointsThinLogarithmically(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 20_000_000_000)
	tl, _ := NewTimeline(func() (*Engine, error) { return New(sc, registry(), Options{}) }, 10)
	tl.max = 16
	tl.Goto(1 << 40)
	var idx []int64
	for _, m := range tl.Marks() {
		idx = append(idx, m.Index)
	}
	if len(idx) > 16 {
		t.Fatalf("%d checkpoints kept, max 16", len(idx))
	}
	n := len(idx)
	if newest, oldest := idx[n-1]-idx[n-2], idx[2]-idx[1]; newest >= oldest {
		t.Fatalf("spacing near the frontier %d is not finer than far back %d: %v", newest, oldest, idx)
	}
	// Thinned or not, every Goto still lands on the fresh-run state.
	for _, i := range []int64{1, idx[1] + 3, idx[n-1] - 1} {
		tl.Goto(i)
		ref := mustEngine(t, sc, Options{})
		for ref.Index() < i {
			ref.Step()
		}
		if tl.Engine().Digest() != ref.Digest() {
			t.Fatalf("Goto(%d) after thinning diverged", i)
		}
	}
}

// TestTrim_CalledOnceABigBatchIsConsumed: a host that implements
// hosts.Trimmer is told to release its buffers after each call whose
// actions the engine consumed and that returned more than trimAfter of
// them, and never after a small one; the records are all written first.
func TestTrim_CalledOnceABigBatchIsConsumed(t *testing.T) {
	sc := scriptScenario(map[string]any{"records": int64(trimAfter)}, 350_000_000) // 1 tick record + trimAfter
	var w lines
	e := mustEngine(t, sc, Options{Writer: &w})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	big, small := e.st.hosts[0].h.(*scriptHost), e.st.hosts[1].h.(*scriptHost)
	if big.ticks == 0 || big.trims != big.ticks {
		t.Fatalf("the host returning %d actions per tick was trimmed %d times in %d ticks, want every tick", trimAfter+1, big.trims, big.ticks)
	}
	if small.trims != 0 {
		t.Fatalf("the host returning one action per tick was trimmed %d times, want never", small.trims)
	}
	if n := strings.Count(w.buf.String(), `"type":"burst"`); int64(n) != big.ticks*trimAfter {
		t.Fatalf("%d burst records written, want %d", n, big.ticks*trimAfter)
	}
}

// TestRestarter_ToldWhenEachLifeBegins: a hosts.Restarter hears of every
// life's start at its instant, before its first tick — a fresh life after
// New, a preserve_state resurrection as a resumed restart — so a kind
// whose disk outlives its process (raft) can tell a crash from a pause.
func TestRestarter_ToldWhenEachLifeBegins(t *testing.T) {
	for _, tc := range []struct {
		preserve bool
		want     string
	}{
		{false, "500000000:false,"},       // a fresh host: told once, at its start
		{true, "0:false,500000000:true,"}, // the same host: told of its first life, then of the restart
	} {
		sc := scriptScenario(map[string]any{}, 1_000_000_000)
		sc.Mutations = []network.Mutation{
			{Kind: network.PeerKill, At: 300_000_000, Peer: "p00"},
			{Kind: network.PeerResurrect, At: 500_000_000, Peer: "p00", PreserveState: tc.preserve},
		}
		e := mustEngine(t, sc, Options{})
		if s := string(e.Hosts()[0].Snapshot); !strings.Contains(s, `"starts":"0:false,"`) {
			t.Fatalf("before any step the first life is not told it started at 0: %s", s)
		}
		e.Run()
		if s := string(e.Hosts()[0].Snapshot); !strings.Contains(s, `"starts":"`+tc.want+`"`) {
			t.Errorf("preserve_state=%v: %s, want starts %q", tc.preserve, s, tc.want)
		}
	}
}

// A delivery to a host whose codec is a hosts.ReusingCodec (echo) is
// decoded into the value the previous one was: a long run allocates
// nothing per event, so the garbage collector, and its write barriers on
// every copy the hosts make, stay idle (docs/BENCHMARKS.md, "The engine
// near its floor").
func TestSteps_EchoMeshAllocatesNothing(t *testing.T) {
	e := mustEngine(t, meshScenario("echo", 16, benchPolicy, 1<<62), Options{Sink: &nullSink{}})
	for range 10_000 { // past the cold-start dials and the buffers' growth
		e.Step()
	}
	const steps = 20_000
	if n := testing.AllocsPerRun(1, func() {
		for range steps {
			e.Step()
		}
	}); n > steps/1000 {
		t.Fatalf("%v allocations in %d steps", n, steps)
	}
}

// batchLines is a RecordWriter that takes whole batches of lines, as the
// bundle writer does (EventLinesWriter).
type batchLines struct {
	lines
	calls int
	n     int64
}

func (l *batchLines) WriteEventLines(b []byte, n int64) error {
	if len(b) == 0 || b[len(b)-1] != '\n' || int64(bytes.Count(b, []byte{'\n'})) != n {
		return fmt.Errorf("batch of %d bytes is not %d whole lines", len(b), n)
	}
	l.calls++
	l.n += n
	l.buf.Write(b)
	return nil
}

// builtMonitor is typedMonitor that also takes the value and the written
// payload together (BuiltMonitor), and checks they agree.
type builtMonitor struct {
	typedMonitor
	mismatch string
}

func (m *builtMonitor) ObserveBuilt(line, at int64, host, tag string, ev hosts.Event, payload []byte) {
	if got := string(ev.AppendJSON(nil)); got != string(payload) && m.mismatch == "" {
		m.mismatch = fmt.Sprintf("line %d: value %s, payload %s", line, got, payload)
	}
	m.Observe(line, at, host, tag, ev.Type(), payload)
}

// TestBatchedWrites_SameBytesAndDigest: a writer that takes the engine's
// records in batches gets every line a line-at-a-time writer gets, the
// last batch by the time the events' hash is asked for, in far fewer
// calls; a monitor judging built values beside the JSON sees the records
// a JSON monitor sees.
func TestBatchedWrites_SameBytesAndDigest(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 20_000_000_000)
	var one lines
	var plain typedMonitor
	a := mustEngine(t, sc, Options{Writer: &one, Monitor: &plain})
	if err := a.Run(); err != nil {
		t.Fatal(err)
	}
	var batched batchLines
	var built builtMonitor
	b := mustEngine(t, sc, Options{Writer: &batched, Monitor: &built, JudgeBuilt: true})
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	sum := b.EventsSHA256()
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if batched.buf.String() != one.buf.String() || batched.n != a.Records() || batched.n == 0 {
		t.Fatalf("batched writer got %d lines (%d bytes), line writer %d (%d bytes)", batched.n, batched.buf.Len(), a.Records(), one.buf.Len())
	}
	if batched.calls >= int(batched.n)/10 {
		t.Errorf("%d batches for %d lines: not batched", batched.calls, batched.n)
	}
	if sum != a.EventsSHA256() || b.Digest() != a.Digest() {
		t.Errorf("digest differs: %s / %s", b.Digest(), a.Digest())
	}
	if built.mismatch != "" {
		t.Error(built.mismatch)
	}
	if !slices.Equal(built.lines, plain.lines) {
		t.Errorf("the built-value monitor saw %d records, the JSON one %d", len(built.lines), len(plain.lines))
	}
}

// TestBatchedWrites_BufferGoesToTheNextRun: once a batched run has ended
// and its last batch is written, its record buffer serves the next
// engine (batches) instead of a fresh quarter-megabyte a run
// (docs/BENCHMARKS.md, "Buffers kept between runs"), and the next run's
// lines and digests are those of a run with a buffer of its own. A
// collection in between may empty the pool, so one attempt of three must
// show the reuse.
func TestBatchedWrites_BufferGoesToTheNextRun(t *testing.T) {
	sc := meshScenario("echo", 3, lossyPolicy, 5_000_000_000)
	var first batchLines
	a := mustEngine(t, sc, Options{Writer: &first})
	if err := a.Run(); err != nil {
		t.Fatal(err)
	}
	wantSum, wantDigest := a.EventsSHA256(), a.Digest()
	var least uint64 = 1 << 62
	for range 3 {
		var next batchLines
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b := mustEngine(t, sc, Options{Writer: &next})
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
		if err := b.Run(); err != nil {
			t.Fatal(err)
		}
		if sum := b.EventsSHA256(); sum != wantSum || b.Digest() != wantDigest || next.buf.String() != first.buf.String() {
			t.Fatalf("a run on a reused buffer wrote %d bytes, digest %s; want %d, %s", next.buf.Len(), b.Digest(), first.buf.Len(), wantDigest)
		}
	}
	if a.Digest() != wantDigest {
		t.Errorf("the first run's digest changed after its buffer went on: %s, want %s", a.Digest(), wantDigest)
	}
	if least >= writeFlush {
		t.Errorf("engine.New allocated at least %d bytes, want less than a batch buffer (%d)", least, writeFlush)
	}
}
