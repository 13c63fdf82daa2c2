// Package verdict evaluates a run's assertions (spec §10): it reads event
// records in stream order and gives each declared assertion a verdict —
// Pass, Fail or Inconclusive — with evidence pointing at the records that
// decided it. The same Evaluator serves both sides of §10: the engine feeds
// it records as they are emitted and polls Resolved for early termination
// (§4.8, §10.4), and EvaluateBundle replays a bundle's events.ndjson after
// the run to produce the authoritative verdicts.json. Both run the same
// code over the same records, so they cannot disagree.
//
// Every decision is integer arithmetic on virtual nanoseconds, in record
// order; no map order, clock or float reaches a verdict. The definitions
// of each kind are in docs/assertions.md.
package verdict

// Outcome is a verdict's result.
type Outcome string

// The three outcomes of spec §10.2. Inconclusive is reserved for an
// assertion whose precondition never fired during the run.
const (
	Pass         Outcome = "Pass"
	Fail         Outcome = "Fail"
	Inconclusive Outcome = "Inconclusive"
)

// Evidence points at one record (or snapshot) that supports a verdict.
type Evidence struct {
	VirtualTimeNs int64  `json:"virtual_time_ns"`
	Ref           string `json:"event_or_snapshot_ref"` // "events.ndjson#L<line>" or "snapshots/<host>/<seq>.json"
}

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

// maxEvidence bounds a verdict's evidence list; the reason counts the rest.
const maxEvidence = 16
