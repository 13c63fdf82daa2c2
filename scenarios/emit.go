package scenarios

import (
	"bytes"

	"github.com/BurntSushi/toml"
)

// TOML returns the fully merged scenario (every extends applied, no
// [base]) as TOML, with seed set to s.Seed and the "# expect:" header
// kept, so that these bytes alone reproduce a run (DESIGN §4: the bundle's
// scenario.toml). Keys are sorted, so the bytes depend only on the
// scenario. Parsing them gives a Scenario equal to s but for Path and
// SourceSHA256. s.Seed must be at most MaxSeed to parse back.
func (s *Scenario) TOML() []byte { return s.emit(s.DurationNs) }

// TOMLEndingAt is TOML with duration_ns end: the scenario a bundle
// holds when its run went on past the scenario's duration, as an outside
// agent's episode at the edge does on real time (docs/agents.md), so
// the bundle's records and its scenario.toml agree.
func (s *Scenario) TOMLEndingAt(end int64) []byte { return s.emit(end) }

func (s *Scenario) emit(durationNs int64) []byte {
	tree := clone(s.merged).(map[string]any)
	tree["seed"] = s.Seed
	tree["duration_ns"] = durationNs
	var buf bytes.Buffer
	if s.Expect != "" {
		buf.WriteString("# expect: " + s.Expect + "\n\n")
	}
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(tree); err != nil {
		// NB: the tree is what the decoder produced and Parse accepted;
		// the encoder failing on it is a bug here, not an input error.
		panic("scenarios: encoding a parsed scenario: " + err.Error())
	}
	return buf.Bytes()
}
