package swim

import (
	"fmt"
	"runtime"
	"testing"
)

// maxMemberBytes bounds what one member of one node's view costs, the
// node's own fixed state spread over its members included: a cluster of n
// peers holds n² members, so at 10 000 peers each byte here is 100 MB
// (docs/BENCHMARKS.md, "Ten thousand peers"). A member is 12 bytes and its
// place in the probe order 4; its id is the peers slice every node shares.
// It was 48.5 when every member held its id and every node an index of them.
const maxMemberBytes = 20

// memberBytes builds size Member-start nodes of size peers, as a
// simulation does (one peers slice for all), and returns the heap they
// hold per member.
func memberBytes(size int) float64 {
	names := ids(size)
	cfg := DefaultConfig()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	nodes := make([]*Node, size)
	for i, id := range names {
		nodes[i] = New(id, cfg, Member, names, &testRand{uint64(i) + 1})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(nodes)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(size*size)
}

// TestMemberBytes: a thousand nodes of a thousand members hold no more
// than maxMemberBytes a member, so that ten thousand peers fit in memory.
func TestMemberBytes(t *testing.T) {
	got := memberBytes(1000)
	t.Logf("%.1f bytes a member", got)
	if got > maxMemberBytes {
		t.Fatalf("%.1f bytes a member, want at most %d", got, maxMemberBytes)
	}
}

// BenchmarkNew builds a cluster's nodes (every node every peer, as a
// simulation does before its first step) and reports the heap a member
// holds and the time a node takes to build.
func BenchmarkNew(b *testing.B) {
	for _, size := range []int{2000, 4000} {
		b.Run(fmt.Sprintf("%dPeers", size), func(b *testing.B) {
			var per float64
			for range b.N {
				per = memberBytes(size)
			}
			b.ReportMetric(per, "B/member")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/node")
		})
	}
}
