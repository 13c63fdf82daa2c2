// Package swim is a SWIM membership protocol library with the Lifeguard
// extensions, written as a pure state machine so that a production service
// (behind a real UDP transport) and the detsim simulator drive the very same
// code.
//
// A Node never reads a clock, never does I/O and never starts a goroutine:
// time arrives as an int64 nanosecond argument, randomness comes from an
// injected Rand, and everything the node wants done (send a message, arm a
// timer, record a diagnostics event) is returned as an ordered list of
// Effects. The caller delivers messages with Receive, timers with
// TimerFired, and calls Tick periodically; the probe cycle runs on ticks.
//
// What it implements: randomised round-robin probing (ping / ack, then
// ping_req / indirect_ack through random intermediaries, with a nack flag
// for Lifeguard), suspicion with incarnation numbers and refutation,
// suspicion timeouts that shrink with independent confirmations, local
// health (awareness) that scales probe timing, dissemination piggybacked on
// every message through a broadcast queue with invalidation, a retransmit
// limit and a per-message byte budget, and join by full-state transfer.
// The wire codec is a compact versioned binary format (Encode, Decode).
//
// The behaviour, the wire layout, every event and every configuration key
// are documented in docs/swim.md at the repository root.
//
// The package imports only the standard library and nothing from the
// simulator.
package swim
