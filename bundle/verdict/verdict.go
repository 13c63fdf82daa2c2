// Package verdict evaluates a run's assertions (spec §10): it reads event
// records in stream order and gives each declared assertion a verdict —
// Pass, Fail or Inconclusive — with evidence pointing at the records that
// decided it. The same Evaluator serves both sides of §10: the engine feeds
// it records as they are emitted and polls Resolved for early termination
// (§4.8, §10.4), and EvaluateBundle replays a bundle's events.ndjson after
// the run to produce the authoritative verdicts.json. Both run the same
// code over the same records, so they cannot disagree.
//
// The evaluator names no host kind. It judges the core's kind-agnostic
// assertions (event_count, event_rate) itself and hands every other
// assertion to the judge its host kind declares (hosts.Assertions), with
// the records that judge reads: routed by kind_tag, so one kind's record
// is never taken for another's of the same type name.
//
// Every decision is integer arithmetic on virtual nanoseconds, in record
// order; no map order, clock or float reaches a verdict. The definitions
// of each kind are in docs/assertions.md.
package verdict

import "github.com/detsim/detsim/hosts"

// Outcome is a verdict's result (hosts.Outcome: the kinds' judges write
// the same values).
type Outcome = hosts.Outcome

// The three outcomes of spec §10.2. Inconclusive is reserved for an
// assertion whose precondition never fired during the run.
const (
	Pass         = hosts.Pass
	Fail         = hosts.Fail
	Inconclusive = hosts.Inconclusive
)

// Evidence points at one record (or snapshot) that supports a verdict.
type Evidence = hosts.Evidence

// Verdict is one assertion's result, as written to verdicts.json.
type Verdict struct {
	Name       string         `json:"name"`
	Kind       string         `json:"kind"`
	Parameters map[string]any `json:"parameters"`
	Outcome    Outcome        `json:"outcome"`
	Evidence   []Evidence     `json:"evidence"`
	// Reason says in one line, for a human, why the outcome is what it is.
	Reason string `json:"reason"`
}

// Partial is one assertion's standing while records are still arriving.
type Partial struct {
	Name string
	Kind string
	// Resolved says the records so far already determine the verdict;
	// Outcome and Reason are set only then.
	Resolved bool
	Outcome  Outcome
	Reason   string
	// Line is the events.ndjson line whose record decided the verdict;
	// 0 while unresolved.
	Line int
	// Evidence is what the verdict rests on so far (set once resolved).
	Evidence []Evidence
}
