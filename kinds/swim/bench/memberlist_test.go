package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/memberlist"
)

var slow = flag.Bool("slow", false, "also run the 1000-node comparison (memberlist alone takes 20–60 s of wall time)")

// mlRun is what one memberlist run did.
type mlRun struct {
	Packets, Bytes, Dropped int64
	Streams, StreamBytes    int64
	MinMembers, MaxMembers  int // alive members each node sees at the end, itself included
	Converged               int // nodes that see all n alive
	FailedJoins             int
	JoinError               string // the first failed join's error
	LoggedErrors            int    // [ERR] lines memberlist logged during the run
	FirstLoggedError        string
}

// queueFor sizes the inbound packet queue: deep enough that no datagram is
// dropped in these runs (a full queue is counted, never waited on).
func queueFor(n int) int { return max(1024, 4*n) }

// Draining after shutdown: steps and the most virtual time allowed.
const (
	drainStep  = 100 * time.Millisecond
	drainLimit = time.Minute
)

// runMemberlist starts n memberlist nodes (node0 … node<n-1>) from
// DefaultLANConfig on one memNetwork, joins every node to node0, lets d of
// virtual time pass and shuts them all down. Gossip rounds and periodic
// push/pull are off (GossipInterval = 0, PushPullInterval = 0), so, as in
// detsim's SWIM, updates travel only piggybacked on probe traffic. It must
// run inside a synctest bubble: time.Sleep(d) then costs no wall time.
func runMemberlist(tb testing.TB, n int, d time.Duration) mlRun {
	tag := labelBubble()
	mn := newMemNetwork(queueFor(n))
	nodes := make([]*memberlist.Memberlist, n)
	var r mlRun
	var errs errorLog
	for i := range n {
		conf := memberlist.DefaultLANConfig()
		conf.Name = peerID(i)
		conf.Transport = mn.transport(i, conf.Name)
		conf.LogOutput = &errs
		conf.GossipInterval = 0
		conf.PushPullInterval = 0
		m, err := memberlist.Create(conf)
		if err != nil {
			tb.Fatalf("memberlist.Create(%s): %v", conf.Name, err)
		}
		nodes[i] = m
	}
	start := time.Now() // virtual: the bubble's clock
	ip0, port0 := nodeAddr(0)
	seed := peerID(0) + "/" + net.JoinHostPort(ip0.String(), strconv.Itoa(port0))
	for i := 1; i < n; i++ {
		if _, err := nodes[i].Join([]string{seed}); err != nil {
			r.FailedJoins++
			if r.JoinError == "" {
				r.JoinError = fmt.Sprintf("%s at virtual %v: %v", peerID(i), time.Since(start), err)
			}
		}
	}
	time.Sleep(d)
	r.MinMembers = n + 1
	for _, m := range nodes {
		alive := m.NumMembers()
		r.MinMembers = min(r.MinMembers, alive)
		r.MaxMembers = max(r.MaxMembers, alive)
		if alive == n {
			r.Converged++
		}
	}
	r.Packets, r.Bytes, r.Dropped = mn.packets.Load(), mn.bytes.Load(), mn.dropped.Load()
	r.Streams, r.StreamBytes = mn.streams.Load(), mn.streamBytes.Load()
	r.LoggedErrors, r.FirstLoggedError = errs.summary()
	for _, m := range nodes {
		if err := m.Shutdown(); err != nil {
			tb.Errorf("shutdown: %v", err)
		}
	}
	// NB: a bubble panics if its main goroutine returns while others are
	// still blocked, and time no longer advances then. A probe in flight
	// at shutdown waits out its timeouts and TCP fallback, so let virtual
	// time pass until every goroutine memberlist started has returned;
	// the counts above were taken before.
	for waited := time.Duration(0); bubbleGoroutines(tag) > 1; waited += drainStep {
		if waited > drainLimit {
			var stacks strings.Builder
			pprof.Lookup("goroutine").WriteTo(&stacks, 1)
			tb.Fatalf("%d goroutines still running %v after shutdown:\n%s", bubbleGoroutines(tag)-1, drainLimit, stacks.String())
		}
		time.Sleep(drainStep)
	}
	return r
}

// errorLog is every node's log output: it keeps the count of [ERR]
// lines and the first one, and discards the rest.
type errorLog struct {
	mu    sync.Mutex
	n     int
	first string
}

func (l *errorLog) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte("[ERR]")) {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		l.first = strings.TrimSpace(string(p))
	}
	l.n++
	return len(p), nil
}

func (l *errorLog) summary() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.first
}

// bubbleSeq numbers runs, so each bubble's goroutines carry their own
// label.
var bubbleSeq atomic.Int64

// labelBubble gives the calling goroutine, and so every goroutine it
// starts and theirs in turn, a pprof label unique to this run, and
// returns it.
func labelBubble() string {
	id := strconv.FormatInt(bubbleSeq.Add(1), 10)
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(bubbleLabel, id)))
	return `"` + bubbleLabel + `":"` + id + `"` // as the goroutine profile prints it
}

const bubbleLabel = "detsim-bench-run"

// bubbleGoroutines counts the live goroutines labelled tag. Counting only
// them, not runtime.NumGoroutine, keeps a goroutine outside the bubble
// (a finalizer, the test framework's) from looking like a leak.
func bubbleGoroutines(tag string) int {
	var b strings.Builder
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	total := 0
	// debug=1 groups identical stacks: "N @ pc…", then "# labels: {…}".
	count := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if n, _, ok := strings.Cut(line, " @ "); ok {
			count, _ = strconv.Atoi(n)
			continue
		}
		if strings.HasPrefix(line, "# labels: ") && strings.Contains(line, tag) {
			total += count
			count = 0
		}
	}
	return total
}

// inBubble runs runMemberlist(n, d) in a fresh synctest bubble parented
// by t. The caller may be another goroutine than t's (a benchmark run by
// testing.Benchmark), as long as t's test is still running.
func inBubble(t *testing.T, n int, d time.Duration) mlRun {
	var r mlRun
	synctest.Test(t, func(t *testing.T) { r = runMemberlist(t, n, d) })
	return r
}

// TestMemberlist_3Nodes7Min_Converges checks the memberlist side does the
// work the comparison claims: three nodes that all see each other alive
// after 7 virtual minutes, about one probe (ping + ack) per node per
// second, and no datagram lost to a full queue.
func TestMemberlist_3Nodes7Min_Converges(t *testing.T) {
	r := inBubble(t, 3, 7*time.Minute)
	if r.Converged != 3 || r.FailedJoins != 0 {
		t.Errorf("converged %d of 3, failed joins %d", r.Converged, r.FailedJoins)
	}
	if r.Dropped != 0 {
		t.Errorf("%d datagrams dropped", r.Dropped)
	}
	if r.LoggedErrors != 0 {
		t.Errorf("memberlist logged %d errors, the first: %s", r.LoggedErrors, r.FirstLoggedError)
	}
	if want := int64(3 * 420 * 2); r.Packets < want*9/10 || r.Packets > want*11/10 {
		t.Errorf("packets = %d, want about %d", r.Packets, want)
	}
	t.Logf("%+v", r)
}
