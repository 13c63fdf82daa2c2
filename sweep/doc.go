// Package sweep runs many scenarios on worker goroutines and reports
// them in a fixed order: the seeds of a property (spec §10.3, Run), the
// library scenarios against their "# expect:" headers (Check), and the
// pinned regression corpus (WritePin, ReplayPin). Each run is the
// single-threaded, deterministic engine; only the scheduling of runs onto
// workers is concurrent, and results are handed back in seed (or name)
// order, so what a sweep prints depends on its inputs alone.
//
// A run here writes no bundle: it drives the engine with the streaming
// evaluator attached and takes the verdicts and the digest from memory,
// which is what makes hundreds of seeds a second possible. The digest and
// the verdicts are the ones `detsim --batch` would report for the same
// scenario (TestRunScenario_MatchesBatch).
package sweep
