// Package shrink reduces a failing scenario to its essentials: it
// greedily removes peers, mutations, links, snapshots, other assertions
// and kind_config keys, shortens the run and lowers loss, jitter and
// reordering, keeping each change only if the chosen assertion still
// fails. Passes repeat, delta-debugging style (chunks of half the list,
// then quarters, down to single items), until a whole round changes
// nothing or the budget of runs is spent.
//
// Every candidate is a scenario file the loader validates before it is
// run, so the result is always a valid scenario; removing a peer removes
// every reference to it (its links, the mutations and assertions that
// name it, and its id in other peers' kind_config lists). The order of
// passes and candidates is fixed and runs are deterministic, so the same
// input always shrinks to the same output. Runs stop as soon as the chosen
// assertion is resolved, and a candidate seen before is not run again.
package shrink
