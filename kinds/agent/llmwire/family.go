package llmwire

import "github.com/detsim/detsim/hosts"

// Family is what the three agent-family kinds answer alike, written once:
// the up/down states of a host that can go down and come back
// (hosts.Restartable) and this package's codec. Each kind embeds it and
// adds the methods that are its own (tag, faults, summary, charts).
type Family struct{}

// States is the family's host states: a host is up, or down after a fault.
func (Family) States() []string { return []string{"up", "down"} }

// DownState is the state a host of the family is in while down.
func (Family) DownState() string { return "down" }

// RestartState is the state a host of the family comes back in.
func (Family) RestartState() string { return "up" }

// Codec is the family's one wire codec.
func (Family) Codec() hosts.Codec { return Codec{} }
