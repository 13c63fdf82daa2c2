package node

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/rng"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// testWall is the idle node's wall clock (Unix ns): sequence numbers near
// it are fresh.
const testWall = int64(1_800_000_000_000_000_000)

// seal frames msg to the idle node "a" under testKey with sequence
// number testWall+d.
func seal(msg []byte, d int64) []byte {
	return Seal(testKey, "a", bytes.Clone(msg), uint64(testWall+d))
}

// recorder collects a node's lines.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) out(line []byte) {
	r.mu.Lock()
	r.lines = append(r.lines, string(line))
	r.mu.Unlock()
}

func (r *recorder) count(sub string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range r.lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// idle is a node that is never started: Receive is called directly.
func idle(t testing.TB, key []byte) (*Node, *recorder) {
	return idleWith(t, key, swim.DefaultConfig())
}

func idleWith(t testing.TB, key []byte, cfg swim.Config) (*Node, *recorder) {
	return idleAs(t, "a", []string{"a", "b"}, key, cfg)
}

// idleAs is an idle node of id id among peers.
func idleAs(t testing.TB, id string, peers []string, key []byte, cfg swim.Config) (*Node, *recorder) {
	return clocked(t, id, peers, key, cfg, func() int64 { return 5 })
}

// clocked is a node of id id among peers whose clock reads clock, not
// yet started.
func clocked(t testing.TB, id string, peers []string, key []byte, cfg swim.Config, clock func() int64) (*Node, *recorder) {
	conn, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rec := &recorder{}
	n, err := New(Config{
		ID: id, Peers: peers, Swim: cfg, Start: swim.Member,
		Rand: rng.New(1).Host(id, "kind"), Conn: conn, Key: key,
		Clock: clock, Wall: func() int64 { return testWall },
		TickPeriodNs: 1e8, Out: rec.out,
		Route: func(string, []byte, int, int64, uint64) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, rec
}

func ping(t testing.TB) []byte {
	b, err := swim.Encode(&swim.Message{Kind: swim.Ping, From: "b", Seq: 1, Target: "a"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSealOpenRoundTrip(t *testing.T) {
	msg := ping(t)
	d := Seal(testKey, "a", bytes.Clone(msg), 42)
	if len(d) != len(msg)+FrameLen("a") || !bytes.Equal(d[:len(msg)], msg) {
		t.Fatalf("the codec's bytes must be unchanged at the front of the datagram")
	}
	got, seq, reason := Open(testKey, "a", d)
	if reason != "" || !bytes.Equal(got, msg) || seq != 42 {
		t.Fatalf("Open: %q %d %q", got, seq, reason)
	}
	if _, _, reason := Open([]byte("another key, sixteen+ bytes"), "a", d); reason != ReasonBadTag {
		t.Errorf("wrong key: %q, want bad_tag", reason)
	}
	// The sequence number and the destination are inside the tag:
	// changing either breaks the tag.
	for _, at := range []int{len(d) - TagBytes - 1, len(msg)} {
		forged := bytes.Clone(d)
		forged[at] ^= 1
		if _, _, reason := Open(testKey, "a", forged); reason != ReasonBadTag {
			t.Errorf("changed byte %d of the frame: %q, want bad_tag", at-len(msg), reason)
		}
	}
	if _, _, reason := Open(testKey, "a", d[:FrameLen("")-1]); reason != ReasonNoTag {
		t.Errorf("short: %q, want no_tag", reason)
	}
	if got := Seal(nil, "a", msg, 1); !bytes.Equal(got, msg) {
		t.Error("unkeyed Seal must leave the datagram as the codec's bytes")
	}
}

// A captured datagram sent again is dropped and counted as a replay, as
// many times as it is sent; the state machine sees it once (before, every
// replay was answered and logged). Datagrams overtaken in flight are
// still taken; one older than the clock window, or from further ahead
// of it than the window, is stale.
func TestReceive_ReplaysAreCountedDrops(t *testing.T) {
	n, rec := idle(t, testKey)
	good := ping(t)
	d := seal(good, 0)
	for range 1000 {
		n.Receive(d, "127.0.0.1:9")
	}
	if n.Drops() != 999 || rec.count(`"reason":"replay"`) != 999 {
		t.Fatalf("drops %d, replay records %d; want 999 of each", n.Drops(), rec.count(`"reason":"replay"`))
	}
	if got := rec.count(`"type":"message_received"`); got != 1 {
		t.Fatalf("the state machine saw the datagram %d times, want once", got)
	}
	// Overtaken: 5 arrives before 3; both are taken, each once.
	for _, dt := range []int64{5, 3, 5, 3} {
		n.Receive(seal(good, dt), "127.0.0.1:9")
	}
	if got := rec.count(`"type":"message_received"`); got != 3 {
		t.Fatalf("reordered datagrams: %d received, want 3", got)
	}
	n, rec = idle(t, testKey) // past 1 000 drops, records are thinned
	for _, dt := range []int64{-ReplayWindowNs - 1, ReplayWindowNs + 1} {
		n.Receive(seal(good, dt), "127.0.0.1:9")
	}
	if rec.count(`"reason":"stale"`) != 2 {
		t.Fatalf("stale records %d, want 2", rec.count(`"reason":"stale"`))
	}
}

// Past replayPerSender later datagrams, the oldest a receiver remembers
// becomes the sender's floor: a replay of it is still refused.
func TestReplay_FloorKeepsRefusingWhatWasForgotten(t *testing.T) {
	r := newReplay(4)
	for i := range uint64(replayPerSender + 10) {
		if reason := r.check("b", uint64(testWall)+i, testWall); reason != "" {
			t.Fatalf("seq %d: %s", i, reason)
		}
	}
	for i := range uint64(replayPerSender + 10) {
		if reason := r.check("b", uint64(testWall)+i, testWall); reason != ReasonReplay {
			t.Fatalf("replay of seq %d: %q, want replay", i, reason)
		}
	}
	for i, s := range []string{"c", "d", "e"} {
		if reason := r.check(s, uint64(testWall), testWall); reason != "" {
			t.Fatalf("sender %d: %s", i, reason)
		}
	}
	if reason := r.check("f", uint64(testWall), testWall); reason != ReasonSenders {
		t.Fatalf("a fifth sender with room for four: %q", reason)
	}
	// Once the clock has moved past everything they sent, old senders
	// are forgotten and make room.
	if reason := r.check("f", uint64(testWall+2*ReplayWindowNs), testWall+2*ReplayWindowNs); reason != "" {
		t.Fatalf("after the window: %q", reason)
	}
}

// A sender's sequence numbers rise even when its clock does not, and a
// restarted sender (a new sequencer) starts from its clock, above what it
// sent before.
func TestSequencer_RisesStrictly(t *testing.T) {
	var q sequencer
	a, b := q.next(100), q.next(100)
	c := q.next(50)
	if !(a == 100 && b == 101 && c == 102) {
		t.Fatalf("got %d %d %d", a, b, c)
	}
	var restarted sequencer
	if got := restarted.next(200); got != 200 {
		t.Fatalf("restart: %d", got)
	}
}

// Hostile datagrams are dropped and counted, never a crash: random bytes,
// truncated frames, a huge length prefix, a valid frame with a bad tag or
// none.
func TestReceive_HostileDatagramsDroppedAndCounted(t *testing.T) {
	n, rec := idle(t, testKey)
	good := ping(t)
	huge := bytes.Clone(good)
	huge = append(huge, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)
	bad := Seal([]byte("not the cluster key at all!"), "a", bytes.Clone(good), uint64(testWall))
	for _, d := range [][]byte{nil, {1}, []byte("random bytes that are long enough"), good, bad,
		seal(good[:len(good)/2], 1), seal(huge, 2), seal(binary.AppendUvarint(nil, 1<<62), 3)} {
		n.Receive(d, "127.0.0.1:9")
	}
	if n.Drops() != 8 {
		t.Errorf("drops %d, want 8", n.Drops())
	}
	if c := rec.count(`"type":"packet_dropped"`); c != 8 {
		t.Errorf("%d packet_dropped records, want 8:\n%s", c, strings.Join(rec.lines, ""))
	}
	for _, r := range []string{ReasonNoTag, ReasonBadTag, ReasonDecodeError} {
		if rec.count(`"reason":"`+r+`"`) == 0 {
			t.Errorf("no drop with reason %s", r)
		}
	}
	n.Receive(seal(good, 4), "127.0.0.1:9")
	if n.Drops() != 8 || rec.count(`"type":"message_received"`) != 1 {
		t.Errorf("a well-tagged ping must reach the state machine")
	}
}

func TestReceive_FloodThinsRecordsButCountsAll(t *testing.T) {
	n, rec := idle(t, testKey)
	for range 5000 {
		n.Receive([]byte{1, 2, 3}, "127.0.0.1:9")
	}
	if n.Drops() != 5000 {
		t.Fatalf("drops %d", n.Drops())
	}
	if c := rec.count("packet_dropped"); c != dropRecordsFull+4 {
		t.Errorf("%d records, want %d", c, dropRecordsFull+4)
	}
	if !strings.Contains(rec.lines[len(rec.lines)-1], `"count":5000`) {
		t.Errorf("last record must carry the total: %s", rec.lines[len(rec.lines)-1])
	}
}

// FuzzReceive: any datagram, keyed or not, is taken by the state machine
// or dropped and counted, never a panic; a keyed one taken passed the
// tag and the replay window, and the same bytes again are a drop.
func FuzzReceive(f *testing.F) {
	good := ping(f)
	f.Add(seal(good, 0), true)
	f.Add(seal(good, -ReplayWindowNs-1), true)
	f.Add(Seal(testKey, "a", bytes.Clone(good), math.MaxUint64), true)
	f.Add(Seal(testKey, "b", bytes.Clone(good), uint64(testWall)), true)
	f.Add(sealV2(good, uint64(testWall)), true)
	f.Add(good, false)
	f.Add(good[:3], true)
	f.Add(append(bytes.Clone(good), 0xff, 0xff, 0xff, 0xff, 0x0f), false)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, b []byte, keyed bool) {
		var key []byte
		if keyed {
			key = testKey
		}
		n, _ := idle(t, key)
		before := n.Drops()
		n.Receive(b, "127.0.0.1:9")
		if n.Drops() != before {
			return
		}
		m, seq, reason := Open(key, "a", b)
		if reason != "" {
			t.Fatalf("undropped datagram failed Open: %s", reason)
		}
		if _, err := swim.Decode(m); err != nil {
			t.Fatalf("undropped datagram fails Decode: %v", err)
		}
		if !keyed {
			return
		}
		if d := int64(seq) - testWall; seq > math.MaxInt64 || d < -ReplayWindowNs || d > ReplayWindowNs {
			t.Fatalf("sequence number %d outside the window was taken", seq)
		}
		n.Receive(b, "127.0.0.1:9")
		if n.Drops() != before+1 {
			t.Fatal("the same keyed datagram was taken twice")
		}
	})
}

// sealV2 frames msg as the framing before the destination was in the
// tag did: the codec's bytes, the sequence number, the tag.
func sealV2(msg []byte, seq uint64) []byte {
	b := binary.BigEndian.AppendUint64(bytes.Clone(msg), seq)
	return append(b, tag(macLabelV2, testKey, b)...)
}

// A datagram is for the member the sender sealed it for (issue 28): one
// captured on its way from a to b and sent to c, or back to a, is a
// counted wrong_destination drop that changes no view, while b takes it.
// Before, the tag covered neither end's id and all three members took it.
// The replay window still applies to what b takes.
func TestReceive_DatagramForAnotherMemberIsRefused(t *testing.T) {
	peers := []string{"a", "b", "c"}
	msg, err := swim.Encode(&swim.Message{Kind: swim.Ping, From: "a", Seq: 1, Target: "b",
		Updates: []swim.Update{{Member: "c", State: swim.Suspect, Incarnation: 0, From: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	d := Seal(testKey, "b", bytes.Clone(msg), uint64(testWall))
	for _, id := range []string{"c", "a"} {
		n, rec := idleAs(t, id, peers, testKey, swim.DefaultConfig())
		view := n.sw.Snapshot()
		n.Receive(d, "127.0.0.1:9")
		if n.Drops() != 1 || rec.count(`"reason":"wrong_destination"`) != 1 {
			t.Errorf("%s: drops %d, records %q; want one wrong_destination", id, n.Drops(), rec.lines)
		}
		if rec.count(`"type":"message_received"`) != 0 || !bytes.Equal(view, n.sw.Snapshot()) {
			t.Errorf("%s: a datagram for b reached the state machine", id)
		}
	}
	b, rec := idleAs(t, "b", peers, testKey, swim.DefaultConfig())
	b.Receive(d, "127.0.0.1:9")
	b.Receive(d, "127.0.0.1:9")
	if rec.count(`"type":"message_received"`) != 1 || b.Drops() != 1 || rec.count(`"reason":"replay"`) != 1 {
		t.Errorf("b: the datagram sealed for it must be taken once, then be a replay: %q", rec.lines)
	}
}

// The sender a datagram claims is the one its tag authenticates: a
// datagram sealed as from a, its claimed sender changed to x, is refused.
func TestReceive_ClaimedSenderIsTheTaggedOne(t *testing.T) {
	fromA, _ := swim.Encode(&swim.Message{Kind: swim.Ping, From: "a", Seq: 1, Target: "b"})
	fromX, _ := swim.Encode(&swim.Message{Kind: swim.Ping, From: "x", Seq: 1, Target: "b"})
	d := Seal(testKey, "b", bytes.Clone(fromA), uint64(testWall))
	forged := append(bytes.Clone(fromX), d[len(fromA):]...)
	b, rec := idleAs(t, "b", []string{"a", "b", "x"}, testKey, swim.DefaultConfig())
	b.Receive(forged, "127.0.0.1:9")
	if b.Drops() != 1 || rec.count(`"reason":"bad_tag"`) != 1 || rec.count(`"type":"message_received"`) != 0 {
		t.Errorf("a datagram claiming x, tagged as from a: %q", rec.lines)
	}
	b.Receive(d, "127.0.0.1:9")
	if rec.count(`"type":"message_received"`) != 1 {
		t.Errorf("the datagram as a sealed it must be taken: %q", rec.lines)
	}
}

// A datagram of the earlier framing, whose tag covered no destination,
// is refused and named as such, even under the right key.
func TestReceive_OldFormatRefused(t *testing.T) {
	n, rec := idle(t, testKey)
	n.Receive(sealV2(ping(t), uint64(testWall)), "127.0.0.1:9")
	if n.Drops() != 1 || rec.count(`"reason":"old_format"`) != 1 || rec.count(`"type":"message_received"`) != 0 {
		t.Errorf("an old-format datagram: %q", rec.lines)
	}
}

func TestListenLoopback(t *testing.T) {
	if _, err := ListenLoopback("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "not a loopback") {
		t.Errorf("non-loopback bind: %v", err)
	}
	if _, err := ListenLoopback("localhost:7001"); err == nil {
		t.Error("a name must be refused: only literal loopback IPs")
	}
	c, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = ListenLoopback(c.LocalAddr().(*net.UDPAddr).String())
	if err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Errorf("port in use: %v", err)
	}
}

// A node without a key says so in its first record, at a time the bundle
// reader accepts: never before the run's zero, even when the run's start
// was given in the future and the clock still reads negative.
func TestStart_KeylessNodeSaysSoFirst(t *testing.T) {
	n, rec := clocked(t, "a", []string{"a", "b"}, nil, swim.DefaultConfig(), func() int64 { return -9_000_000_000 })
	n.Start()
	realtime.WaitFor(t, "the first record", 5*time.Second, func() bool { return rec.count(`"unauthenticated"`) > 0 })
	n.Stop()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.lines) == 0 || !strings.Contains(rec.lines[0], `"type":"unauthenticated"`) || !strings.HasPrefix(rec.lines[0], `{"virtual_time_ns":0,`) {
		t.Fatalf("first record %q, want unauthenticated at 0", rec.lines)
	}
}

// A daemon that did not run past its ticks (SIGSTOP, a VM paused) is
// handed the clock's time on resuming, once, as a ticker drops the ticks
// it missed. Handing it the missed instants one by one replayed the stall
// at once: the kernel testbed's resumed swimd started a probe "at" the
// first of them and failed it on the replayed ticks that followed, with
// no real wait for its ack, and suspected a member the simulator's
// PeerPause never does (docs/calibration.md, "False alarms"). Here the
// node's first tick was due at 0 and it first runs at 15 s: no record may
// be stamped inside the stall.
func TestLoop_StallDropsMissedTicks(t *testing.T) {
	const stall = int64(15_000_000_000)
	// The first tick is due at 0 (Config.FirstTickNs's zero).
	n, rec := clocked(t, "a", []string{"a", "b"}, testKey, swim.DefaultConfig(), func() int64 { return stall })
	n.Start()
	realtime.WaitFor(t, "the first probe", 5*time.Second, func() bool { return rec.count(`"probe_sent"`) > 0 })
	n.Stop()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, l := range rec.lines {
		var r struct {
			At int64 `json:"virtual_time_ns"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if r.At < stall {
			t.Errorf("record stamped %d ns, inside the stall [0, %d): %s", r.At, stall, strings.TrimSpace(l))
		}
	}
}
