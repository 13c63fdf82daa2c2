package verdict

import (
	"github.com/detsim/detsim/bundle"
)

// want is the set of facts an assertion needs; the evaluator decodes an
// event type only while some unresolved assertion wants it.
type want uint8

const (
	wantRecords   want = 1 << iota // every record, undecoded
	wantViews                      // state_transition, and view resets by PeerResurrect
	wantProbes                     // direct probe_sent / probe_acked / probe_timed_out
	wantMessages                   // message_sent
	wantBumps                      // self_incarnation_bump
	wantMutations                  // mutation
	wantAgent                      // the agent family's records, payloads decoded (oracles.go)
)

// checker is one assertion being evaluated. The evaluator calls the on*
// methods for the facts the checker wants, in stream order; hold(from,
// to) says the state after every record so far holds at every instant
// of [from, to] (no record falls inside); finish closes the run. Once its
// result is resolved, a checker is never called again.
type checker interface {
	wants() want
	onRecord(w *world, line int, rec bundle.EventRecord)
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

func (*base) onRecord(*world, int, bundle.EventRecord) {}
func (*base) onView(*world, viewChange)                {}
func (*base) onProbe(*world, probeFact)                {}
func (*base) onMessage(messageFact)                    {}
func (*base) onBump(bumpFact)                          {}
func (*base) onMutation(*world, mutationFact)          {}
func (*base) hold(*world, int64, int64)                {}
func (b *base) result() *result                        { return &b.res }
