// Package property is the library-property layer of spec §10.3: a
// property file names a base scenario, declares a space of scenarios
// around it (peer count, per-pair link policy ranges, duration, drawn
// kind_config keys, a seeded fault schedule over the host kinds' fault
// catalogs, optional mutation groups) and the assertions to apply, and says whether the
// property is expected to pass or fail. Scenario(seed) expands one point
// of the space into an ordinary, validated scenarios.Scenario; it is a pure
// function of (property, seed), so a seed alone names a failing scenario
// forever. A property without [peer] keeps its base's peers (of any
// kinds) and varies only what its space declares (faults.go).
//
// Draws come from the seed's randomness tree under the substream
// ("host", "property", label) — see Draws — which no engine or network
// draw of a generated scenario ever uses, so the parameters of a scenario
// and the randomness of its run are independent. Every draw is an integer
// drawn uniformly from an inclusive range. docs/sweeps.md describes the
// file format and the derivation for users.
package property
