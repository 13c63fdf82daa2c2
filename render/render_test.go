package render

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/fstree"
)

// The page for a bundle depends on nothing but the bundle and the
// options: two renders are byte-identical (no map order, no clock).
func TestWrite_ByteIdenticalAcrossRuns(t *testing.T) {
	dir := libraryBundle(t, "reproduction/gossip_flap")
	other := libraryBundle(t, "reproduction/gossip_flap_fixed")
	for _, opts := range []Options{{}, {Compare: other}, {FromNs: 100e9, ToNs: 200e9, Mark: true, MarkNs: 150e9, MarkStep: 42}} {
		var a, b bytes.Buffer
		if _, err := Write(&a, dir, opts); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(&b, dir, opts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%+v: two renders differ (%d and %d bytes)", opts, a.Len(), b.Len())
		}
	}
}

// Every send of the reproduction is accounted for: delivered ones pair
// with a receive, the rest with a drop or nothing before the end.
func TestWrite_PairsEveryMessageOfTheReproduction(t *testing.T) {
	dir := libraryBundle(t, "reproduction/gossip_flap")
	path, st := renderFile(t, dir, Options{})
	n := countTypes(t, dir)
	if st.Messages != n["message_sent"] {
		t.Errorf("messages %d, want the %d message_sent records", st.Messages, n["message_sent"])
	}
	page, _ := os.ReadFile(path)
	run := pageData(t, page)["runs"].([]any)[0].(map[string]any)
	mc := run["msgCounts"].(map[string]any)
	if got := int(mc["delivered"].(float64)); got != n["message_received"] {
		t.Errorf("delivered %d, want the %d message_received records", got, n["message_received"])
	}
	if got := int(mc["droppedOnSend"].(float64)); got != n["drop_on_send"] {
		t.Errorf("dropped on send %d, want the %d drop_on_send records", got, n["drop_on_send"])
	}
	if got := int(mc["receiveOnly"].(float64)); got != 0 {
		t.Errorf("%d receives paired with no send", got)
	}
	if st.ArrowsElided != 0 || st.MarksElided != 0 || st.TextsInlined != int(st.Records) {
		t.Errorf("the reproduction is small enough to draw whole: %+v", st)
	}
}

// A message id, when records carry one, pairs a receive with its own
// send even where first-in first-out would swap them (a reordered link).
func TestPairing_IDBeatsFIFO(t *testing.T) {
	lines := []string{
		`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":21,"updates":0,"message_id":1}}`,
		`{"virtual_time_ns":2,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":21,"updates":0,"message_id":2}}`,
		`{"virtual_time_ns":5,"host_id":"b","kind_tag":"swim","event":{"type":"message_received","peer":"a","message":"ping","bytes":21,"updates":0,"message_id":2}}`,
		`{"virtual_time_ns":9,"host_id":"b","kind_tag":"swim","event":{"type":"message_received","peer":"a","message":"ping","bytes":21,"updates":0,"message_id":1}}`,
	}
	r := loadLines(t, lines)
	if len(r.msgs) != 2 || r.msgs[0].endLine != 4 || r.msgs[1].endLine != 3 {
		t.Fatalf("pairs %+v: want send L1 with receive L4 and L2 with L3", r.msgs)
	}
	// Without ids the same records pair first in, first out.
	for i := range lines {
		lines[i] = strings.Replace(lines[i], `,"message_id":`+lines[i][len(lines[i])-3:len(lines[i])-2], "", 1)
	}
	r = loadLines(t, lines)
	if len(r.msgs) != 2 || r.msgs[0].endLine != 3 || r.msgs[1].endLine != 4 {
		t.Fatalf("pairs without ids %+v: want L1 with L3, L2 with L4", r.msgs)
	}
}

// Drops pair with the send they refused or cut.
func TestPairing_Drops(t *testing.T) {
	lines := []string{
		`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":21,"updates":0}}`,
		`{"virtual_time_ns":1,"host_id":"a","kind_tag":"engine","event":{"type":"drop_on_send","from":"a","to":"b","reason":"buffer_full"}}`,
		`{"virtual_time_ns":2,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ack","bytes":17,"updates":0}}`,
		`{"virtual_time_ns":3,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","index":0,"kind":"Partition","peers_a":["a"],"peers_b":["b"]}}`,
		`{"virtual_time_ns":3,"host_id":"b","kind_tag":"engine","event":{"type":"drop_on_delivery","from":"a","to":"b","reason":"partitioned"}}`,
		`{"virtual_time_ns":8,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","index":1,"kind":"Heal"}}`,
	}
	r := loadLines(t, lines)
	if len(r.msgs) != 2 {
		t.Fatalf("%d messages, want 2", len(r.msgs))
	}
	if m := r.msgs[0]; m.status != droppedOnSend || m.endLine != 2 || r.strs.at(m.reason) != "buffer_full" {
		t.Errorf("first send %+v: want dropped on send at L2 (buffer_full)", m)
	}
	if m := r.msgs[1]; m.status != droppedDelivery || m.endLine != 5 || r.strs.at(m.reason) != "partitioned" {
		t.Errorf("second send %+v: want dropped on delivery at L5 (partitioned)", m)
	}
	if len(r.muts) != 2 || r.muts[0].end != 8 || len(r.muts[0].lanes) != 2 {
		t.Errorf("mutations %+v: want the partition over both lanes until the heal at 8", r.muts)
	}
}

func TestWrite_MissingBundleIsExit2NamingIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	_, err := Write(&bytes.Buffer{}, dir, Options{})
	var be *BundleError
	if !errors.As(err, &be) || ExitCode(err) != 2 || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err %v (exit %d): want a BundleError naming %s, exit 2", err, ExitCode(err), dir)
	}
}

func TestWrite_UnverifiableBundleIsExit1NamingTheFile(t *testing.T) {
	src := libraryBundle(t, "reference/echo_parity")
	dir := filepath.Join(t.TempDir(), "b")
	fstree.Copy(t, src, dir)
	ev := filepath.Join(dir, "events.ndjson")
	b, _ := os.ReadFile(ev)
	b[len(b)/2] ^= 1
	os.WriteFile(ev, b, 0o666)
	_, err := Write(&bytes.Buffer{}, dir, Options{})
	var ve *VerifyError
	if !errors.As(err, &ve) || ExitCode(err) != 1 || !strings.Contains(err.Error(), ev) {
		t.Fatalf("err %v (exit %d): want a VerifyError naming %s, exit 1", err, ExitCode(err), ev)
	}
	// A compare bundle is verified too.
	_, err = Write(&bytes.Buffer{}, src, Options{Compare: dir})
	if ExitCode(err) != 1 {
		t.Fatalf("compare with a tampered bundle: %v, want exit 1", err)
	}
}

// hostile is markup that would run if any string reached the page unescaped.
const hostile = `</script><img src=x onerror=window.pwned=1><script>window.pwned=1</script>`

func hostileBundle(t testing.TB) string {
	t.Helper()
	host := `</script><img src=x onerror=window.pwned=1>`
	q := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) }
	lines := []string{
		`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"` + q(host) + `","message":"` + q(hostile) + `","bytes":21,"updates":0}}`,
		`{"virtual_time_ns":2,"host_id":"` + q(host) + `","kind_tag":"swim","event":{"type":"message_received","peer":"a","message":"` + q(hostile) + `","bytes":21,"updates":0}}`,
		`{"virtual_time_ns":3,"host_id":"` + q(host) + `","kind_tag":"swim","event":{"type":"` + q(hostile) + `","note":"` + q(hostile) + "\u2028\u2029" + `"}}`,
		`{"virtual_time_ns":4,"host_id":"a","kind_tag":"swim","event":{"type":"state_transition","observer":"a","subject":"` + q(host) + `","from":"none","to":"` + q(hostile) + `","incarnation":0,"reason":"gossip"}}`,
	}
	verdicts := `[{"name":"` + q(hostile) + `","kind":"k","parameters":{},"outcome":"` + q(hostile) + `","evidence":[{"virtual_time_ns":3,"event_or_snapshot_ref":"events.ndjson#L3"}],"reason":"` + q(hostile) + `"}]` + "\n"
	dir := filepath.Join(t.TempDir(), "hostile")
	writeBundle(t, dir, lines, verdicts)
	return dir
}

// No string from a bundle can end the data's script element or add markup.
func TestWrite_HostileStringsStayInsideTheData(t *testing.T) {
	path, _ := renderFile(t, hostileBundle(t), Options{Title: hostile})
	page, _ := os.ReadFile(path)
	if n := strings.Count(strings.ToLower(string(page)), "</script"); n != 2 {
		t.Errorf("page has %d </script, want 2 (the data's and the script's)", n)
	}
	for _, bad := range []string{"<img", "\u2028", "\u2029"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("page holds %q raw", bad)
		}
	}
	d := pageData(t, page)
	hs := d["hosts"].([]any)
	found := false
	for _, h := range hs {
		found = found || h == `</script><img src=x onerror=window.pwned=1>`
	}
	if !found {
		t.Errorf("hosts %v: the hostile host id must survive as data, exactly", hs)
	}
}

// A window keeps the records inside it and counts the rest.
func TestWrite_WindowKeepsWhatIsInside(t *testing.T) {
	dir := libraryBundle(t, "reproduction/gossip_flap")
	const from, to = 100e9, 200e9
	r, err := load(dir, Options{FromNs: from, ToNs: to})
	if err != nil {
		t.Fatal(err)
	}
	if r.outside == 0 {
		t.Error("a window over a quarter of the run counts nothing outside it")
	}
	for _, m := range r.msgs {
		if m.sendT < from && m.recvT < from || m.sendT > to {
			t.Fatalf("message %+v lies outside [%d, %d]", m, int64(from), int64(to))
		}
	}
	for _, mk := range r.marks {
		if mk.t < from || mk.t > to {
			t.Fatalf("mark %+v lies outside the window", mk)
		}
	}
	if _, err := Write(&bytes.Buffer{}, dir, Options{FromNs: to, ToNs: from}); ExitCode(err) != 2 {
		t.Errorf("--to before --from: %v, want a usage error (exit 2)", err)
	}
}

// The records the page says lie outside a window are exactly those of
// events.ndjson whose time is before or after it, for any window (issue
// 22: messages outside were counted twice, 8 579 of a run's 8 331).
func TestWindow_OutsideCountIsARecordCount(t *testing.T) {
	for _, name := range []string{"reproduction/gossip_flap", "reference/echo_parity"} {
		dir := libraryBundle(t, name)
		var times []int64
		if err := bundle.ReadEvents(dir, func(_ int, rec bundle.EventRecord) error {
			times = append(times, rec.VirtualTimeNs)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		end := times[len(times)-1]
		rnd := rand.New(rand.NewPCG(22, uint64(len(times))))
		windows := [][2]int64{{0, 0}, {0, end}, {end / 2, end / 2}, {85e9, 100e9}}
		for range 12 {
			a, b := rnd.Int64N(end+1), rnd.Int64N(end+1)
			windows = append(windows, [2]int64{min(a, b), max(a, b)})
		}
		for _, w := range windows {
			r, err := load(dir, Options{FromNs: w[0], ToNs: w[1]})
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0)
			for _, at := range times {
				if at < r.from || at > r.to {
					want++
				}
			}
			if r.outside != want {
				t.Errorf("%s window [%d, %d]: %d records outside, events.ndjson has %d", name, r.from, r.to, r.outside, want)
			}
			if r.outside > r.records {
				t.Errorf("%s window [%d, %d]: %d of %d records outside", name, r.from, r.to, r.outside, r.records)
			}
		}
	}
}

// A compare page's lanes are the union of both runs' hosts, so run B's
// lanes start after run A's: every lane a run sends on has its density,
// also where the lane number passes that run's own host count.
func TestCompare_DensityOnEveryLaneOfBothRuns(t *testing.T) {
	a := libraryBundle(t, "smoke/three_mesh")
	b := libraryBundle(t, "smoke/ring8")
	path, _ := renderFile(t, a, Options{Compare: b})
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runs := pageData(t, page)["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	for i, r := range runs {
		run := r.(map[string]any)
		has := map[int]bool{}
		for _, d := range run["density"].([]any) {
			has[int(d.([]any)[0].(float64))] = true
		}
		sends := map[int]bool{}
		for _, f := range run["msg"].(map[string]any)["f"].([]any) {
			sends[int(f.(float64))] = true
		}
		if len(sends) == 0 {
			t.Fatalf("run %d draws no message", i)
		}
		for l := range sends {
			if !has[l] {
				t.Errorf("run %d sends on lane %d, which has no density (lanes with density: %v)", i, l, has)
			}
		}
	}
}

// TestLanes_ReadOnlyTheirOwnKindsRecords (issue 33): a kind's lanes
// (hosts.Lanes) match records by kind_tag as well as type, as its charts
// do. Records tagged echo but typed as SWIM's view change and raft's role
// change are echo's, drawn as plain marks: no membership view, no role
// band, none of SWIM's controls. The same records under their own kinds'
// tags draw all three.
func TestLanes_ReadOnlyTheirOwnKindsRecords(t *testing.T) {
	for _, c := range []struct {
		swim, raft string
		own        bool
	}{{"swim", "raft", true}, {"echo", "echo", false}} {
		lines := []string{
			`{"virtual_time_ns":1,"host_id":"a","kind_tag":"` + c.swim + `","event":{"type":"state_transition","observer":"a","subject":"b","from":"alive","to":"suspect","incarnation":0,"reason":"probe_timeout"}}`,
			`{"virtual_time_ns":2,"host_id":"b","kind_tag":"` + c.raft + `","event":{"type":"role_change","from":"follower","to":"leader","term":2}}`,
		}
		r := loadLines(t, lines)
		if got := len(r.transKept) > 0; got != c.own {
			t.Errorf("kind_tags %s/%s: a membership view drawn %v, want %v", c.swim, c.raft, got, c.own)
		}
		if got := len(r.x.bands) > 0; got != c.own {
			t.Errorf("kind_tags %s/%s: a role band drawn %v, want %v", c.swim, c.raft, got, c.own)
		}
		if r.x.views != c.own {
			t.Errorf("kind_tags %s/%s: SWIM's controls %v, want %v", c.swim, c.raft, r.x.views, c.own)
		}
	}
}

// Charts come from the kinds' declared series: an agent run charts its
// calls' latency, retries and bytes, a provider its requests, and a swim
// run none of theirs (issue 22: "agent and provider hosts get theirs").
// A kind's series reads only its own records and the page holds only the
// charts of the kinds the bundle has records of (issue 33): swim and raft
// both write message_sent, and a swim page drew raft's "message size"
// ("largest raftpb message") and "link bytes per second" from swim's
// records, each twice.
func TestCharts_FromTheKindsDeclarations(t *testing.T) {
	reg := builtin.Registry()
	owner := map[string]string{} // series id → kind_tag
	docs := map[string]string{}  // series id → its legend line
	for _, tag := range reg.Tags() {
		k, _ := reg.Lookup(tag)
		for _, d := range hosts.SeriesOf(k) {
			owner[d.ID], docs[d.ID] = tag, d.Doc
		}
	}
	for _, d := range engine.Series() {
		owner[d.ID], docs[d.ID] = engine.EngineTag, d.Doc
	}
	for _, c := range []struct {
		scenario string
		want     []string
	}{
		{"agent/rate_limit", []string{"agent_latency", "agent_retries", "agent_request_bytes", "provider_request_bytes"}},
		{"reproduction/gossip_flap", []string{"swim_bytes", "swim_updates", "swim_suspicions", "swim_refutations", "swim_incarnation", "swim_link_bytes", "swim_queue"}},
		{"raft/leader_isolation", []string{"raft_applied", "raft_term", "raft_campaigns", "raft_msg_bytes", "raft_link_bytes"}},
		// echo declares no charts: its page holds the engine's alone.
		{"reference/echo_parity", nil},
	} {
		dir := libraryBundle(t, c.scenario)
		present := map[string]bool{}
		if err := bundle.ReadEvents(dir, func(_ int, rec bundle.EventRecord) error {
			present[rec.KindTag] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		r, err := load(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*chart{}
		for _, ch := range r.charts.list {
			if !present[owner[ch.d.ID]] {
				t.Errorf("%s: holds chart %s of kind %q, which has no record in the bundle (kinds: %v)", c.scenario, ch.d.ID, owner[ch.d.ID], present)
			}
			if len(ch.keys) > 0 {
				got[ch.d.ID] = ch
			}
		}
		for _, id := range c.want {
			ch := got[id]
			if ch == nil {
				t.Errorf("%s: no %s chart", c.scenario, id)
				continue
			}
			points := 0
			for _, k := range ch.keys {
				for b := range chartBuckets {
					if ch.agg[k].cnt[b] > 0 {
						points++
					}
				}
			}
			if points == 0 {
				t.Errorf("%s: chart %s has keys but no points", c.scenario, id)
			}
		}

		// The page: no other kind's chart in its data, nor its legend line.
		var buf bytes.Buffer
		if _, err := Write(&buf, dir, Options{}); err != nil {
			t.Fatal(err)
		}
		run := pageData(t, buf.Bytes())["runs"].([]any)[0].(map[string]any)
		ids := map[string]int{}
		for _, ch := range run["charts"].([]any) {
			id := ch.(map[string]any)["id"].(string)
			ids[id]++
			if !present[owner[id]] {
				t.Errorf("%s: the page charts %s of kind %q", c.scenario, id, owner[id])
			}
		}
		for id, n := range ids {
			if n > 1 {
				t.Errorf("%s: the page charts %s %d times", c.scenario, id, n)
			}
		}
		for id, doc := range docs {
			if present[owner[id]] {
				continue
			}
			ours := false
			for id2, doc2 := range docs {
				ours = ours || present[owner[id2]] && doc2 == doc
			}
			if !ours && bytes.Contains(buf.Bytes(), []byte(doc)) {
				t.Errorf("%s: the page holds %s's legend line %q, of kind %q", c.scenario, id, doc, owner[id])
			}
		}
	}
}

// A link's bandwidth line is scenario.toml's bandwidth_bps as written:
// it is bytes per second (docs/network.md), the unit of the link bytes
// chart. It was divided by 8, drawing the line 8× too low.
func TestCharts_BandwidthIsBytesPerSecond(t *testing.T) {
	r := &run{
		hosts: []string{"a", "b", "eu-c"},
		scenario: `[default_link]
bandwidth_bps = 12_500_000
[[links]]
from = "a"
to = "eu-*"
bandwidth_bps = 1_000_000
`,
	}
	ab, ac, ba := chartKey{0, 1}, chartKey{0, 2}, chartKey{1, 0}
	got := r.bandwidths([]chartKey{ab, ac, ba})
	want := map[chartKey]int64{ab: 12_500_000, ac: 1_000_000, ba: 12_500_000}
	if !maps.Equal(got, want) {
		t.Errorf("bandwidths %v, want %v (bytes per second, as the scenario says)", got, want)
	}
}

// A snapshot series reads its dotted path from the snapshot's text.
func TestSnapshotNumber(t *testing.T) {
	snap := []byte(`{"id":"a","members":[{"id":"b","depth":99}],"broadcast_queue":{"depth":41,"bytes":9812},"x":{"depth":-1}}`)
	for p, want := range map[string]int64{"broadcast_queue.depth": 41, "broadcast_queue.bytes": 9812, "x.depth": -1} {
		if v, ok := snapshotNumber(snap, p); !ok || v != want {
			t.Errorf("%s: %d %v, want %d", p, v, ok, want)
		}
	}
	if _, ok := snapshotNumber(snap, "broadcast_queue.oversized"); ok {
		t.Errorf("an absent member read as a number")
	}
}
