package debugger

import (
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
)

// BenchmarkWhy_Thousand times W at the end of the thousand-peer flap
// (reproduction/gossip_flap_wan1000, 1.6 M records): the session has run
// to its end, feeding the causal index as it went, and explains the
// transition with the longest chain among the last thousand suspicions
// (issue 22: within 1 s for up to 50 links). "first" includes building
// the index's lookups, which the first W after a run does; "again" is
// every W after it.
//
//	go test ./debugger -run '^$' -bench Why_Thousand -benchtime 5x
func BenchmarkWhy_Thousand(b *testing.B) {
	sc := library(b, "reproduction/gossip_flap_wan1000")
	s, err := NewSession(sc, builtin.Registry(), nil)
	if err != nil {
		b.Fatal(err)
	}
	s.SetCheckpointBudget(0)
	s.Continue(nil)
	// The candidates: the last thousand suspicions the index holds.
	var lines []int64
	q, _ := ParseQuery("type=state_transition to=suspect")
	for n := s.Timeline().Engine().Records(); n > 0 && len(lines) < 1000; n-- {
		r, ok := s.Record(n)
		if !ok {
			break
		}
		if q.Match(r.Bytes, r.Step, r.At) {
			lines = append(lines, n)
		}
	}
	start := time.Now()
	best, links := int64(0), 0
	for _, l := range lines {
		c, err := s.Why(l)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Links) > links {
			best, links = l, len(c.Links)
		}
	}
	b.Logf("%d chains in %v (the first one building the lookups); the longest, L%d, has %d links", len(lines), time.Since(start), best, links)
	b.Run("again", func(b *testing.B) {
		for b.Loop() {
			c, err := s.Why(best)
			if err != nil || !c.Complete {
				b.Fatal(err, c.Note)
			}
		}
		b.ReportMetric(float64(links), "links")
	})
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			s.why.Forget()
			if _, err := s.Why(best); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(links), "links")
	})
}
