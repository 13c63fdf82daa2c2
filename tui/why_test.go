package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/render"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
)

// recordAt is the record under the log cursor, taken apart.
func recordAt(t *testing.T, m Model) (int64, screen.Event) {
	t.Helper()
	n := m.scr.LogCursor()
	l := m.frame().LogAt(n)
	if l == nil || l.Bytes == nil {
		t.Fatalf("no record %d under the cursor; status %q", n, m.status)
	}
	ev, err := screen.ParseEvent(l.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return n, ev
}

// m on a message_sent goes to the record that ended the message (its
// message_received here), m there goes back to the send; m on a record
// that names no message says so and moves nothing.
func TestFollowMessage_SendToDeliveryAndBack(t *testing.T) {
	m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), 120, 40)
	m = drive(t, m, keys("/", "text:type=message_sent message=ping_req", "enter")...)
	sent, ev := recordAt(t, m)
	id := ev.Field("id")
	if ev.Type != "message_sent" || id == "" {
		t.Fatalf("search landed on %s %v (%q)", ev.Type, ev, m.status)
	}
	m = drive(t, m, keys("m")...)
	got, end := recordAt(t, m)
	if got <= sent || end.Field("id") != id || end.Type == "message_sent" {
		t.Fatalf("m from %s (record %d) landed on record %d: %s %v; status %q", id, sent, got, end.Type, end, m.status)
	}
	if end.Type == "message_received" && (end.Host != ev.Field("peer") || end.Field("seq") != ev.Field("seq")) {
		t.Fatalf("the delivery of %s is at %s with seq %s, sent to %s seq %s", id, end.Host, end.Field("seq"), ev.Field("peer"), ev.Field("seq"))
	}
	if !strings.Contains(m.status, id+" ended at record") {
		t.Errorf("status %q", m.status)
	}
	m = drive(t, m, keys("m")...)
	if back, _ := recordAt(t, m); back != sent {
		t.Fatalf("m back from record %d landed on %d, not the send %d; status %q", got, back, sent, m.status)
	}
	m = drive(t, m, keys("/", "text:type=probe_sent", "enter")...)
	before, _ := recordAt(t, m)
	m = drive(t, m, keys("m")...)
	if after, _ := recordAt(t, m); after != before || !m.isError || !strings.Contains(m.status, "names no message") {
		t.Fatalf("m on a probe_sent: cursor %d → %d, status %q", before, after, m.status)
	}
}

// w on a suspect member of the selected host goes to the record where
// that host came to hold it suspect; the host pane shows its accuser in
// full and lists the broadcast queue's entries.
func TestWhy_AccuserAndBroadcastQueue(t *testing.T) {
	m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), 120, 40)
	m = drive(t, m, keys("g", "text:2072", "enter")...) // fra suspects orch
	s := screenText(m)
	for _, want := range []string{"accused by fra", "broadcast queue (2, 289B), next out first", " tx "} {
		if !strings.Contains(s, want) {
			t.Errorf("host pane lacks %q:\n%s", want, s)
		}
	}
	m = drive(t, m, keys("w")...)
	_, ev := recordAt(t, m)
	if ev.Type != "state_transition" || ev.Host != "fra" || ev.Field("subject") != "orch" || ev.Field("to") != "suspect" {
		t.Fatalf("w landed on %s %s %v; status %q", ev.Host, ev.Type, ev, m.status)
	}
	if !strings.Contains(m.status, "fra's view of orch became suspect") {
		t.Errorf("status %q", m.status)
	}
	// The cursor in the host pane: tab to it, j/k move it, enter works too.
	m = newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), 120, 40)
	m = drive(t, m, keys("g", "text:2072", "enter", "tab", "tab", "j", "j")...)
	if m.scr.Focus() != screen.PaneHost || m.scr.HostCursor() != 2 {
		t.Fatalf("focus %v cursor %d", m.scr.Focus(), m.scr.HostCursor())
	}
	if !strings.Contains(screenText(m), "▶fra  alive") {
		t.Errorf("no host cursor on fra:\n%s", screenText(m))
	}
	m = drive(t, m, keys("enter")...)
	if _, ev := recordAt(t, m); ev.Type != "state_transition" || ev.Field("subject") != "orch" {
		t.Fatalf("enter in the host pane landed on %s %v; status %q", ev.Type, ev, m.status)
	}
}

// pictureModel is a 120x40 stepper on the gossip-flap reproduction whose
// P writes its pictures in dir.
func pictureModel(t *testing.T, dir string) Model {
	t.Helper()
	m, err := NewModel(loadScenario(t, "reproduction/gossip_flap"), testRegistry(), Options{Width: 120, Height: 40, PictureDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// P writes the run's picture: a bundle at <dir>/<name>-<seed>, the page
// beside it with the current step marked; again, it replaces both (its
// own); a file it did not write at the page's path is refused and kept.
func TestPicture_WritesThePageAndRefusesStrangers(t *testing.T) {
	dir := t.TempDir()
	m := pictureModel(t, dir)
	m = drive(t, m, keys("g", "text:2072", "enter", "P")...)
	page := filepath.Join(dir, "gossip_flap-42.html")
	if m.isError || m.status != "picture: "+page+" (step 2 072 marked)" {
		t.Fatalf("status %q (error %v)", m.status, m.isError)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := render.IsPage(page); !ok || !bytes.Contains(b, []byte(`"step":2072`)) {
		t.Fatalf("the page is not a detsim page marked at step 2072 (%d bytes)", len(b))
	}
	if _, err := os.Stat(filepath.Join(dir, "gossip_flap-42", "manifest.json")); err != nil {
		t.Fatalf("no bundle beside the page: %v", err)
	}
	m = drive(t, m, keys("n", "P")...) // its own page and bundle: replaced
	if m.isError || !strings.Contains(m.status, "(step 2 073 marked)") {
		t.Fatalf("second picture: %q", m.status)
	}
	// Its own page with the user's notes appended is the user's now
	// (before, its head matched and P replaced it).
	own, _ := os.ReadFile(page)
	noted := append(own, "<p>my notes</p>\n"...)
	if err := os.WriteFile(page, noted, 0o644); err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("P")...)
	if b, _ := os.ReadFile(page); !m.isError || !bytes.Equal(b, noted) {
		t.Fatalf("over detsim's page with notes appended: %q; notes kept: %v", m.status, bytes.Equal(b, noted))
	}
	if err := os.WriteFile(page, []byte("<html>mine</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("P")...)
	if !m.isError || !strings.Contains(m.status, "is not a page detsim wrote") {
		t.Fatalf("over a stranger's file: %q", m.status)
	}
	if b, _ := os.ReadFile(page); string(b) != "<html>mine</html>" {
		t.Fatal("the stranger's file was replaced")
	}
	// A directory at the bundle path that is not a bundle: batch refuses.
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "gossip_flap-42")
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("P")...)
	if !m.isError || !strings.Contains(m.status, "not written") {
		t.Fatalf("over a directory that is not a bundle: %q", m.status)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Fatal("the directory was replaced")
	}
}

// The three keys through the real bubbletea runtime: m there and back,
// w, and P (whose I/O runs in a command while the stepper stays live).
func TestTeatest_FollowWhyPicture(t *testing.T) {
	dir := t.TempDir()
	m := pictureModel(t, dir)
	tm := runTea(t, m, 120, 40)
	enter(t, tm, "g2072", "at step 2 072")
	tm.Type("w")
	waitScreen(t, tm, "fra's view of orch became suspect")
	enter(t, tm, "/type=message_sent", "match: record")
	tm.Type("m")
	waitScreen(t, tm, "ended at record")
	tm.Type("m")
	waitScreen(t, tm, "was sent at record")
	tm.Type("P")
	waitScreen(t, tm, "marked)")
	final := quit(t, tm)
	if final.isError || !strings.HasPrefix(final.status, "picture: "+filepath.Join(dir, "gossip_flap-42.html")) {
		t.Fatalf("final status %q", final.status)
	}
}

// Hosts are listed in natural order (node2 before node10) in the matrix
// rows and columns, and a row's cells, its host pane and the selection
// stay the host's own.
func TestNaturalOrder_HostsAsPeopleCount(t *testing.T) {
	m := newTestModel(t, natScenario(t), 120, 40)
	m = drive(t, m, keys("g", "text:2s", "enter", "tab", "j", "j", "j")...) // node10 is the last row
	want := []string{"node1", "node2", "node9", "node10"}
	if !slices.Equal(m.frame().Peers(), want) {
		t.Fatalf("peers on screen %v, want %v", m.frame().Peers(), want)
	}
	s := screenText(m)
	rows := regexp.MustCompile(`(?m)^[ ▶](node\d+) `).FindAllStringSubmatch(s, -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("matrix rows %v, want %v:\n%s", got, want, s)
	}
	if !strings.Contains(s, "─ node10 (swim, running)") || !strings.Contains(s, "▶node10") {
		t.Fatalf("selecting the last row does not show node10:\n%s", s)
	}
	r := m.frame().Row(3)
	if r == nil || r.Self() != "node10" {
		t.Fatalf("row 3 is not node10's own view: %+v", r)
	}
	for j := range 3 {
		if st, _ := r.Cell(j); st != 'A' {
			t.Fatalf("node10's view of %s: %q", want[j], st)
		}
	}
}

// natScenario is four SWIM hosts whose byte order (node1, node10, node2,
// node9) is not the order people count them in.
func natScenario(t *testing.T) *scenarios.Scenario {
	t.Helper()
	src := "name = \"nat\"\nseed = 1\nduration_ns = 5_000_000_000\n[default_tick]\nperiod_ns = 100_000_000\n" +
		"[default_link]\nlatency_ns = 1_000_000\nbandwidth_bps = 100_000_000\n"
	for _, id := range []string{"node1", "node10", "node2", "node9"} {
		src += "[[peers]]\nid = \"" + id + "\"\nkind = \"swim\"\ninitial_state = \"member\"\n"
	}
	sc, err := scenarios.Parse("nat.toml", []byte(src), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The host pane lists the selected host's members in the same natural
// order as the matrix, not in the snapshot's byte order.
func TestHostPane_MembersInNaturalOrder(t *testing.T) {
	m := newTestModel(t, natScenario(t), 120, 40)
	m = drive(t, m, keys("g", "text:2s", "enter")...) // node1 selected
	s := screenText(m)
	var got []string
	for _, r := range regexp.MustCompile(`(node\d+) +(alive|suspect|dead) +inc \d`).FindAllStringSubmatch(s, -1) {
		got = append(got, r[1])
	}
	if want := []string{"node1", "node2", "node9", "node10"}; !slices.Equal(got, want) {
		t.Fatalf("host pane members %v, want %v:\n%s", got, want, s)
	}
}
