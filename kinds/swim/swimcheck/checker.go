package swimcheck

import (
	"github.com/detsim/detsim/hosts"
)

// want is the set of facts an assertion needs; the judge decodes a
// record type only while some unresolved assertion wants it.
type want uint8

const (
	wantRecords   want = 1 << iota // every swim and engine record, undecoded
	wantViews                      // state_transition, and view resets by PeerResurrect
	wantProbes                     // direct probe_sent / probe_acked / probe_timed_out
	wantMessages                   // message_sent
	wantBumps                      // self_incarnation_bump
	wantMutations                  // mutation

	nWants = iota // how many facts there are
)

// checker is one assertion being evaluated. The judge calls the on*
// methods for the facts the checker wants, in stream order; hold(from,
// to) says the state after every record so far holds at every instant
// of [from, to] (no record falls inside); finish closes the run. Once its
// result is resolved, a checker is never called again.
type checker interface {
	wants() want
	onRecord(w *world, rec *hosts.EventRec)
	onView(w *world, c viewChange)
	onProbe(w *world, p probeFact)
	onMessage(m messageFact)
	onBump(b bumpFact)
	onMutation(w *world, m mutationFact)
	hold(w *world, from, to int64)
	finish(w *world, endNs int64)
	result() *result
	clone() checker
}

// base gives checkers no-op handlers and their result.
type base struct{ res result }

func (*base) onRecord(*world, *hosts.EventRec) {}
func (*base) onView(*world, viewChange)        {}
func (*base) onProbe(*world, probeFact)        {}
func (*base) onMessage(messageFact)            {}
func (*base) onBump(bumpFact)                  {}
func (*base) onMutation(*world, mutationFact)  {}
func (*base) hold(*world, int64, int64)        {}
func (b *base) result() *result                { return &b.res }

// The outcomes, as the checkers write them.
const (
	Pass         = hosts.Pass
	Fail         = hosts.Fail
	Inconclusive = hosts.Inconclusive
)

// mark is one record cited as evidence.
type mark struct {
	line   int
	timeNs int64
}

// markOf cites the record that set v; a missing view has no record.
func markOf(v view) (mark, bool) { return mark{v.line, v.timeNs}, v.line > 0 }

// result is a checker's verdict once resolved.
type result struct{ hosts.Result }

// resolve fixes the verdict (hosts.Result.Resolve).
func (r *result) resolve(o hosts.Outcome, reason string, marks ...mark) {
	cites := make([]hosts.Cite, len(marks))
	for i, m := range marks {
		cites[i] = hosts.Cite{Line: m.line, TimeNs: m.timeNs}
	}
	r.Resolve(o, reason, cites...)
}

func (r result) clone() result { return result{r.Result.Clone()} }

// fmtNs writes a virtual time the way every reason does.
func fmtNs(ns int64) string { return hosts.Seconds(ns) }
