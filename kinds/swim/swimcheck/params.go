package swimcheck

import "github.com/detsim/detsim/hosts"

// The swim kind's assertion kinds (spec §10.1), one parameter struct
// each, held by value. Each *T's Bind is the single definition of its
// kind's parameters (TOML key, shape, default, Go field): the loader
// decodes through it, verdicts.json encodes from it (hosts.Def).

// AllAliveAt is all_alive_at { at_ns, peers }.
type AllAliveAt struct {
	AtNs  int64
	Peers []string
}

// AllAliveThroughout is all_alive_throughout { window_start_ns,
// window_end_ns, peers }.
type AllAliveThroughout struct {
	WindowStartNs, WindowEndNs int64
	Peers                      []string
}

// ConvergenceAfter is convergence_after { after_ns, within_ns, peers }.
type ConvergenceAfter struct {
	AfterNs, WithinNs int64
	Peers             []string
}

// NoFlapWhileProbesOK is no_flap_while_probes_ok { peer, window_start_ns,
// window_end_ns, max_cycle_ns }.
type NoFlapWhileProbesOK struct {
	Peer                       string
	WindowStartNs, WindowEndNs int64
	// MaxCycleNs, when not 0, is the longest suspect → alive → suspect
	// cycle that counts as a flap: two unrelated false suspicions minutes
	// apart are not one flap. 0 (omitted): any length, as before.
	MaxCycleNs int64
}

// NoDeadWhenProbesOK is no_dead_when_probes_ok { peer, window_start_ns,
// window_end_ns }.
type NoDeadWhenProbesOK struct {
	Peer                       string
	WindowStartNs, WindowEndNs int64
}

// SelfIncarnationBounded is self_incarnation_bounded { peer, max_value }.
type SelfIncarnationBounded struct {
	Peer     string
	MaxValue int64
}

// MessageSizeBounded is message_size_bounded { message_kind, max_bytes }
// (§10.1's `kind`, renamed: DESIGN §4).
type MessageSizeBounded struct {
	MessageKind string
	MaxBytes    int64
}

// DeadPeerResurrectsWithin is dead_peer_resurrects_within { peer,
// after_ns, within_ns }.
type DeadPeerResurrectsWithin struct {
	Peer              string
	AfterNs, WithinNs int64
}

func (p *AllAliveAt) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.TimeParam("at_ns", hosts.Required, &p.AtNs), hosts.PeersParam("peers", &p.Peers)}
}

func (p *AllAliveThroughout) Bind() []hosts.Slot {
	return []hosts.Slot{
		hosts.TimeParam("window_start_ns", hosts.DefaultRunStart, &p.WindowStartNs),
		hosts.TimeParam("window_end_ns", hosts.DefaultRunEnd, &p.WindowEndNs),
		hosts.PeersParam("peers", &p.Peers),
	}
}

func (p *ConvergenceAfter) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.TimeParam("after_ns", hosts.Required, &p.AfterNs), hosts.TimeParam("within_ns", hosts.Required, &p.WithinNs), hosts.PeersParam("peers", &p.Peers)}
}

func (p *NoFlapWhileProbesOK) Bind() []hosts.Slot {
	return []hosts.Slot{
		hosts.PeerParam("peer", &p.Peer),
		hosts.TimeParam("window_start_ns", hosts.DefaultRunStart, &p.WindowStartNs),
		hosts.TimeParam("window_end_ns", hosts.DefaultRunEnd, &p.WindowEndNs),
		hosts.OptionalSpanParam("max_cycle_ns", &p.MaxCycleNs),
	}
}

func (p *NoDeadWhenProbesOK) Bind() []hosts.Slot {
	return []hosts.Slot{
		hosts.PeerParam("peer", &p.Peer),
		hosts.TimeParam("window_start_ns", hosts.DefaultRunStart, &p.WindowStartNs),
		hosts.TimeParam("window_end_ns", hosts.DefaultRunEnd, &p.WindowEndNs),
	}
}

func (p *SelfIncarnationBounded) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer), hosts.CountParam("max_value", &p.MaxValue)}
}

func (p *MessageSizeBounded) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.StringParam("message_kind", &p.MessageKind), hosts.CountParam("max_bytes", &p.MaxBytes)}
}

func (p *DeadPeerResurrectsWithin) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer), hosts.TimeParam("after_ns", hosts.Required, &p.AfterNs), hosts.TimeParam("within_ns", hosts.Required, &p.WithinNs)}
}

// One Kind and one Family line a params type, as every family writes
// them: hosts.AssertionParams asks each type for both, so the lines look
// alike across families and differ only in names.

func (AllAliveAt) Kind() string               { return "all_alive_at" }
func (AllAliveThroughout) Kind() string       { return "all_alive_throughout" }
func (ConvergenceAfter) Kind() string         { return "convergence_after" }
func (NoFlapWhileProbesOK) Kind() string      { return "no_flap_while_probes_ok" }
func (NoDeadWhenProbesOK) Kind() string       { return "no_dead_when_probes_ok" }
func (SelfIncarnationBounded) Kind() string   { return "self_incarnation_bounded" }
func (MessageSizeBounded) Kind() string       { return "message_size_bounded" }
func (DeadPeerResurrectsWithin) Kind() string { return "dead_peer_resurrects_within" }

func (p AllAliveAt) Slots() []hosts.Slot               { return p.Bind() }
func (p AllAliveThroughout) Slots() []hosts.Slot       { return p.Bind() }
func (p ConvergenceAfter) Slots() []hosts.Slot         { return p.Bind() }
func (p NoFlapWhileProbesOK) Slots() []hosts.Slot      { return p.Bind() }
func (p NoDeadWhenProbesOK) Slots() []hosts.Slot       { return p.Bind() }
func (p SelfIncarnationBounded) Slots() []hosts.Slot   { return p.Bind() }
func (p MessageSizeBounded) Slots() []hosts.Slot       { return p.Bind() }
func (p DeadPeerResurrectsWithin) Slots() []hosts.Slot { return p.Bind() }

func (AllAliveAt) Family() *hosts.Assertions               { return Family }
func (AllAliveThroughout) Family() *hosts.Assertions       { return Family }
func (ConvergenceAfter) Family() *hosts.Assertions         { return Family }
func (NoFlapWhileProbesOK) Family() *hosts.Assertions      { return Family }
func (NoDeadWhenProbesOK) Family() *hosts.Assertions       { return Family }
func (SelfIncarnationBounded) Family() *hosts.Assertions   { return Family }
func (MessageSizeBounded) Family() *hosts.Assertions       { return Family }
func (DeadPeerResurrectsWithin) Family() *hosts.Assertions { return Family }

// Family is the swim kind's assertions (spec §10.1, in spec order) and
// their judge. The §10.1 parameter `kind` of message_size_bounded is
// `message_kind`: `kind` already names the assertion kind in the
// [[assertions]] table (DESIGN §4).
var Family = &hosts.Assertions{
	Kinds: []hosts.AssertionKind{
		hosts.Def[AllAliveAt](hosts.NoPair, hosts.NoPair),
		hosts.Def[AllAliveThroughout](hosts.WindowPair, hosts.NoPair),
		hosts.Def[ConvergenceAfter](hosts.NoPair, hosts.DeadlinePair),
		hosts.Def[NoFlapWhileProbesOK](hosts.WindowPair, hosts.NoPair),
		hosts.Def[NoDeadWhenProbesOK](hosts.WindowPair, hosts.NoPair),
		hosts.Def[SelfIncarnationBounded](hosts.NoPair, hosts.NoPair),
		hosts.Def[MessageSizeBounded](hosts.NoPair, hosts.NoPair),
		hosts.Def[DeadPeerResurrectsWithin](hosts.NoPair, hosts.DeadlinePair),
	},
	Judge: newJudge,
}
