package verdict

import (
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
)

// want is the set of records a core assertion needs; the evaluator reads
// a payload only while some unresolved one wants it.
type want uint8

const (
	wantRecords want = 1 << iota // every record, undecoded
)

// world is the state the core's assertions share: the logs of the
// records event_rate assertions count, one per type. The kinds' judges
// keep their own.
type world struct {
	rates rateLogs
}

func (w *world) clone() world { return world{rates: w.rates.clone()} }

// checker is one of the core's own assertions (event_count, event_rate)
// being evaluated. The evaluator hands it every record in stream order;
// hold(from, to) says the state after every record so far holds at
// every instant of [from, to]; finish closes the run. Once its result is
// resolved, a checker is never called again.
type checker interface {
	wants() want
	onRecord(w *world, line int, rec bundle.EventRecord)
	hold(w *world, from, to int64)
	finish(w *world, endNs int64)
	result() *hosts.Result
	clone() checker
}

// base gives checkers a no-op hold and their result.
type base struct{ res hosts.Result }

func (*base) hold(*world, int64, int64) {}
func (b *base) result() *hosts.Result   { return &b.res }
