package bundle

import _ "embed"

// knownGaps is the known-gaps document every bundle carries (spec §9.1):
// what the simulator does not model and how it resolved the spec's open
// points, so a reader of a bundle knows the limits of what it shows.
//
//go:embed known_gaps.md
var knownGaps []byte

// KnownGaps returns the known-gaps document written into every bundle.
func KnownGaps() string { return string(knownGaps) }
