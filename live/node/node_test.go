package node

import (
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/detsim/detsim/hosts/swim"
	"github.com/detsim/detsim/rng"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

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
	conn, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rec := &recorder{}
	n, err := New(Config{
		ID: "a", Peers: []string{"a", "b"}, Swim: swim.DefaultConfig(), Start: swim.Member,
		Rand: rng.New(1).Host("a", "kind"), Conn: conn, Key: key,
		Clock: func() int64 { return 5 }, TickPeriodNs: 1e8, Out: rec.out,
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
	d := Seal(testKey, bytes.Clone(msg))
	if len(d) != len(msg)+TagBytes || !bytes.Equal(d[:len(msg)], msg) {
		t.Fatalf("the codec's bytes must be unchanged inside the datagram")
	}
	got, reason := Open(testKey, d)
	if reason != "" || !bytes.Equal(got, msg) {
		t.Fatalf("Open: %q %q", got, reason)
	}
	if _, reason := Open([]byte("another key, sixteen+ bytes"), d); reason != ReasonBadTag {
		t.Errorf("wrong key: %q, want bad_tag", reason)
	}
	if _, reason := Open(testKey, d[:5]); reason != ReasonNoTag {
		t.Errorf("short: %q, want no_tag", reason)
	}
	if got := Seal(nil, msg); !bytes.Equal(got, msg) {
		t.Error("unkeyed Seal must leave the datagram as the codec's bytes")
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
	bad := Seal([]byte("not the cluster key at all!"), bytes.Clone(good))
	for _, d := range [][]byte{nil, {1}, []byte("random bytes that are long enough"), good, bad,
		Seal(testKey, good[:len(good)/2]), Seal(testKey, huge), Seal(testKey, binary.AppendUvarint(nil, 1<<62))} {
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
	n.Receive(Seal(testKey, bytes.Clone(good)), "127.0.0.1:9")
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

func FuzzReceive(f *testing.F) {
	good := ping(f)
	f.Add(Seal(testKey, bytes.Clone(good)), true)
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
		// Either the state machine saw it or it was counted: never lost
		// silently, never a panic.
		if n.Drops() == before {
			m, reason := Open(key, b)
			if reason != "" {
				t.Fatalf("undropped datagram failed Open: %s", reason)
			}
			if _, err := swim.Decode(m); err != nil {
				t.Fatalf("undropped datagram fails Decode: %v", err)
			}
		}
	})
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
