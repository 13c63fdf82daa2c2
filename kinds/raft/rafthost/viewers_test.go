package rafthost_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/pane"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/render"
)

// chainText is a chain as `detsim why` lists it, one link a line.
func chainText(c causal.Chain) string {
	var b strings.Builder
	for _, l := range c.Links {
		b.WriteString(strings.Repeat("  ", l.Depth) + l.Host + " " + l.Type + ": " + l.Text)
		if l.Why != "" {
			b.WriteString(" — " + l.Why)
		}
		if l.Origin {
			b.WriteString(" [origin]")
		}
		b.WriteByte('\n')
	}
	if c.Note != "" {
		b.WriteString("note: " + c.Note + "\n")
	}
	return b.String()
}

// explainLine builds an index of a run's records as the stepper does and
// explains the record on line.
func explainLine(t *testing.T, rs *records, line int) causal.Chain {
	t.Helper()
	x := rafthost.Kind.(causal.Explains).Explainer()
	ix := causal.NewIndex(1<<30, x.Keeps()...)
	for i, r := range rs.all {
		ix.Add(int64(i+1), 0, r.At, []byte(r.Raw))
	}
	c, err := causal.Why(ix, []causal.Explainer{x}, int64(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// firstLine is the line (1-based) of the first record of typ on host
// meeting ok.
func firstLine(t *testing.T, rs *records, typ, host string, ok func(record) bool) int {
	t.Helper()
	for i, r := range rs.all {
		if r.Type() == typ && r.Host == host && ok(r) {
			return i + 1
		}
	}
	t.Fatalf("no %s on %s", typ, host)
	return 0
}

// TestExplain_LeaderChangeChainsToTheFault: W on a follower's new
// leader after the old leader was isolated walks back through the
// leader's append the follower heard, the election that made it leader
// (its votes as details, its pre-vote round) and the old leader's last
// word, to the partition on the timeline: the origin.
func TestExplain_LeaderChangeChainsToTheFault(t *testing.T) {
	rs, _ := run(t, loadLibrary(t, "raft/leader_isolation"))
	var newLead string
	line := firstLine(t, rs, "leader_change", "n2", func(r record) bool {
		newLead = r.Str("lead")
		return r.At > 10_000_000_000 && newLead != "" && newLead != "n1"
	})
	c := explainLine(t, rs, line)
	text := chainText(c)
	if !c.Complete {
		t.Fatalf("the chain stops short:\n%s", text)
	}
	for _, want := range []string{
		"n2 leader_change: n2 follows " + newLead + " in term",
		"n2 message_received: n2 received ",
		newLead + " message_sent: " + newLead + " sent ",
		newLead + " leader_change: " + newLead + " leads term",
		newLead + " role_change: " + newLead + " campaigned for term",
		"  ", // a vote, as a detail
		newLead + " role_change: " + newLead + " asked for pre-votes",
		newLead + " message_received: " + newLead + " last heard from n1",
		" mutation: the timeline's Partition",
	} {
		if want == "  " {
			if !strings.Contains(text, "\n  ") || !strings.Contains(text, "granted its vote to "+newLead) {
				t.Errorf("no vote as a detail:\n%s", text)
			}
			continue
		}
		if !strings.Contains(text, want) {
			t.Errorf("chain does not say %q:\n%s", want, text)
		}
	}
	if last := c.Links[len(c.Links)-1]; !last.Origin || last.Type != "mutation" {
		t.Errorf("the origin is %+v, not the partition", last)
	}
}

// TestBreakOn_LeaderChangeTermAbove3_ThenWhy: `--break-on
// 'type=leader_change term>3'` stops a raft run where a follower that
// was partitioned away comes back with a high term (without PreVote),
// and W there explains it: the leader heard the higher term from the
// rejoining follower, whose repeated campaigns the partition caused.
func TestBreakOn_LeaderChangeTermAbove3_ThenWhy(t *testing.T) {
	sc := loadLibrary(t, "raft/follower_rejoin_no_prevote")
	s, err := debugger.NewSession(sc, registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	bp, err := debugger.ParseBreakpoint("type=leader_change term>3")
	if err != nil {
		t.Fatal(err)
	}
	hit := s.Continue([]debugger.Breakpoint{bp})
	if hit.Breakpoint == nil {
		t.Fatal("the run ended without a leader change above term 3")
	}
	q, err := debugger.ParseQuery("type=leader_change term>3")
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := s.Search(q, s.Timeline().Engine().Records()+1, false, nil, nil)
	if err != nil || f.Line == 0 {
		t.Fatalf("the record that fired is not found: %v", err)
	}
	r, _ := s.Record(f.Line)
	if !bytes.Contains(r.Bytes, []byte(`"host_id":"n1"`)) || !bytes.Contains(r.Bytes, []byte(`"lead":""`)) {
		t.Fatalf("stopped on %s, want n1 losing its leadership", r.Bytes)
	}
	c, err := s.Why(f.Line)
	if err != nil {
		t.Fatal(err)
	}
	text := chainText(c)
	for _, want := range []string{
		"n1 has no leader in term",
		"n1 received MsgAppResp from n5",
		"n5 sent MsgAppResp of term",
		"n5 role_change: n5 became candidate",
		"the timeline's Partition",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("chain does not say %q:\n%s", want, text)
		}
	}
	if !c.Complete {
		t.Errorf("the chain stops short:\n%s", text)
	}
}

// paneText is a pane as plain text, each changed cell in *stars* and
// each line's search after it.
func paneText(lines []pane.Line) string {
	var b strings.Builder
	for _, l := range lines {
		for _, c := range l.Cells {
			if c.Tone == hosts.ToneChanged {
				b.WriteString("*" + c.Text + "*")
			} else {
				b.WriteString(c.Text)
			}
		}
		if l.Find != "" {
			b.WriteString("    [w: " + l.Find + "]")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestPane_LeaderAndFollower: the stepper's raft pane of the baseline
// cluster's leader at 5 s (term, role, lead, commit, applied, the log's
// tail with the committed entries ticked, each follower's progress and
// inflight appends) and of a follower, with what the last step changed
// starred; and nothing, never a panic, for bytes it cannot read.
func TestPane_LeaderAndFollower(t *testing.T) {
	e, err := engine.New(loadLibrary(t, "raft/cluster"), registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.RunUntil(func(s engine.StepInfo) bool { return s.At >= 5_000_000_000 })
	var got strings.Builder
	for i, h := range e.Hosts() {
		if i > 1 {
			break
		}
		before := h.Snapshot
		e.RunUntil(func(engine.StepInfo) bool { return !bytes.Equal(e.HostAt(i).Snapshot, before) })
		now := e.HostAt(i).Snapshot
		got.WriteString("== " + h.ID + "\n")
		got.WriteString(paneText(rafthost.Kind.(pane.Drawer).Pane(pane.Input{Snapshot: now, Before: before, NowNs: e.Now(), Peers: e.Peers(), Width: 60})))
	}
	golden.Check(t, "testdata/pane.golden", got.String())
	for _, b := range []string{"", "{", `{"id":3}`, `{"id":"n1","log_tail":7}`, `null`} {
		if l := rafthost.Kind.(pane.Drawer).Pane(pane.Input{Snapshot: []byte(b)}); l != nil {
			t.Errorf("pane of %q: %v", b, l)
		}
	}
}

// TestPage_DrawsRaftByItsDeclarations: the page of a raft bundle labels
// each host's lane by the kind's marks (elections, leaders) and charts
// its declared series; nothing in render names the raft kind.
func TestPage_DrawsRaftByItsDeclarations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	if _, err := batch.Run(loadLibrary(t, "raft/follower_rejoin_no_prevote"), registry(), batch.Config{Out: dir, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if _, err := render.Write(&page, dir, render.Options{Kinds: registry()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"lead n1 t1",    // every member learns the first leader
		"candidate t2",  // n5, cut off, campaigns (no PreVote)
		"lead n3 t10",   // the cluster's new leader after n5 deposed n1
		"applied index", // a declared series
		"campaigns",     // another
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestPane_ElectionClock (issue 30 item 7): the pane shows each member's
// election clock against its randomized timeout, read from raft itself
// (Inspect), so it is the clock raft campaigns by: on raft/leader_isolation
// every member that leaves follower for a campaign last showed a clock
// one tick short of its timeout, the timeouts lie in [base, 2·base) and
// differ between members (they are drawn), and a leader shows its
// quorum check instead.
func TestPane_ElectionClock(t *testing.T) {
	e, err := engine.New(loadLibrary(t, "raft/leader_isolation"), registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type clock struct {
		role             string
		elapsed, timeout int
		base             int
		line             string
	}
	look := func(i int) clock {
		h := e.HostAt(i)
		var c clock
		lines := rafthost.Kind.(pane.Drawer).Pane(pane.Input{Snapshot: h.Snapshot, Inspect: e.Inspect(i, 8), Width: 40})
		if len(lines) == 0 {
			return c
		}
		c.role = lines[0].Cells[0].Text
		for _, l := range lines {
			txt := ""
			for _, cl := range l.Cells {
				txt += cl.Text
			}
			if n, _ := fmt.Sscanf(txt, "election %d/%d ticks (base %d)", &c.elapsed, &c.timeout, &c.base); n == 3 || strings.HasPrefix(txt, "quorum check ") {
				c.line = txt
			}
		}
		return c
	}
	last := make([]clock, len(e.Hosts()))
	timeouts := map[int]bool{}
	campaigns, leaders := 0, 0
	idx := map[string]int{}
	for i, h := range e.Hosts() {
		idx[h.ID] = i
		last[i] = look(i)
	}
	for !e.Done() {
		info := e.Step()
		// Only the host stepped can change.
		i, ok := idx[info.Host]
		if !ok {
			continue
		}
		c := look(i)
		was := last[i]
		// The first campaign is the scenario's campaign_at_ns, not a timeout.
		if leaders > 0 && was.role == "follower" && (c.role == "pre_candidate" || c.role == "candidate") && info.Kind == "Tick" {
			campaigns++
			if was.elapsed+1 < was.timeout {
				t.Errorf("step %d: %s campaigned with its clock at %d/%d", info.Index, info.Host, was.elapsed, was.timeout)
			}
		}
		if c.role == "follower" {
			if c.line == "" {
				t.Fatalf("step %d: follower %s's pane has no election line", info.Index, info.Host)
			}
			if c.timeout < c.base || c.timeout >= 2*c.base {
				t.Fatalf("step %d: %s: timeout %d outside [%d, %d)", info.Index, info.Host, c.timeout, c.base, 2*c.base)
			}
			timeouts[c.timeout] = true
		}
		if c.role == "leader" && strings.HasPrefix(c.line, "quorum check ") {
			leaders++
		}
		last[i] = c
	}
	if campaigns == 0 || leaders == 0 || len(timeouts) < 2 {
		t.Fatalf("campaigns %d, leader looks %d, distinct timeouts %v: the run did not exercise the clock", campaigns, leaders, timeouts)
	}
}
