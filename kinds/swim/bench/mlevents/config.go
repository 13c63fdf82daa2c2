package mlevents

import (
	"fmt"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
)

// Settings are a swim peer's kind_config as memberlist settings.
type Settings struct {
	// Swim is the kind_config as kinds/swim/swim reads it (swimcfg.Parse): the
	// values Apply copies, and Seeds, the join targets of a "joining" start.
	Swim swim.Config
	// TCPPings is memberlist's fallback ping over TCP at the probe
	// timeout (kinds/swim/swim's fallback_probe): on, memberlist's default,
	// unless kind_config says fallback_probe = false.
	TCPPings bool
}

// ParseConfig reads a swim peer's kind_config for memberlist: every key
// kinds/swim/swim reads (swimcfg.Parse, against the declared peers, with its
// messages), then the refusal of every key and value memberlist has no
// equivalent for. The rule is that a key present is honoured or refused,
// never ignored; a key absent leaves memberlist's default, which is
// kinds/swim/swim's default too, except two that docs/calibration.md lists:
// the TCP fallback ping (on in memberlist) and the dissemination design
// (memberlist's own). Settings with problems must not be used.
func ParseConfig(kv map[string]any, peers []string) (Settings, []hosts.FieldError) {
	cfg, errs := swimcfg.Parse(kv, peers)
	s := Settings{Swim: cfg, TCPPings: true}
	if len(errs) > 0 {
		return s, errs
	}
	refuse := func(key, format string, args ...any) {
		errs = append(errs, hosts.FieldError{Field: "kind_config." + key, Msg: fmt.Sprintf(format, args...)})
	}
	if cfg.Gossip == swim.Legacy {
		refuse("gossip", `"legacy" has no memberlist equivalent: memberlist's broadcast queue always invalidates superseded updates and limits retransmissions`)
	}
	if v, ok := kv["dissemination"]; ok && v != "memberlist" {
		refuse("dissemination", `%q has no memberlist equivalent: memberlist disseminates as memberlist does ("memberlist")`, v)
	}
	// Lifeguard's nack and buddy system are always on in memberlist;
	// awareness and dynamic suspicion have settings that turn them off
	// (Apply).
	if cfg.NoNack {
		refuse(lifeguardKey(kv, "lifeguard_nack"), "memberlist always sends and expects nacks (Lifeguard's nack has no off switch)")
	}
	if cfg.NoBuddy {
		refuse(lifeguardKey(kv, "lifeguard_buddy"), "memberlist always staples a suspicion to its ping of a suspect member (Lifeguard's buddy system has no off switch)")
	}
	if _, ok := kv["initial_incarnation"]; ok {
		refuse("initial_incarnation", "memberlist starts every node at incarnation 1 and has no setting for it")
	}
	if v, ok := kv["fallback_probe"].(bool); ok {
		s.TCPPings = v
	}
	return s, errs
}

// lifeguardKey names the key that turned a Lifeguard component off: its
// own, or the lifeguard shorthand.
func lifeguardKey(kv map[string]any, own string) string {
	if _, ok := kv[own]; ok {
		return own
	}
	return "lifeguard"
}

// Apply sets every memberlist setting that has a kind_config key, from
// s, on conf (DefaultLANConfig's values are kinds/swim/swim's defaults), and
// names the node name. What memberlist has and kinds/swim/swim lacks stays
// memberlist's: the gossip timer (GossipInterval 200 ms to GossipNodes
// 3), compression, TCPTimeout 10 s, GossipToTheDeadTime 30 s.
//
// kind_config → memberlist.Config:
//
//	probe_interval_ns          ProbeInterval
//	probe_timeout_ns           ProbeTimeout
//	indirect_checks            IndirectChecks
//	retransmit_mult            RetransmitMult
//	suspicion_mult             SuspicionMult
//	suspicion_max_timeout_mult SuspicionMaxTimeoutMult (1 with lifeguard_suspicion = false)
//	awareness_max_multiplier   AwarenessMaxMultiplier (1 with lifeguard_awareness = false)
//	max_message_bytes          UDPBufferSize
//	push_pull_interval_ns      PushPullInterval
//	meta_bytes                 Delegate.NodeMeta: kinds/swim/swim's DerivedMeta of that size
//	fallback_probe             DisableTcpPings = !fallback_probe
//	seeds                      the join targets of a "joining" start (the caller's)
func (s Settings) Apply(conf *memberlist.Config, name string) {
	c := s.Swim
	conf.Name = name
	conf.ProbeInterval = time.Duration(c.ProbeIntervalNs)
	conf.ProbeTimeout = time.Duration(c.ProbeTimeoutNs)
	conf.IndirectChecks = c.IndirectChecks
	conf.RetransmitMult = c.RetransmitMult
	conf.SuspicionMult = c.SuspicionMult
	conf.SuspicionMaxTimeoutMult = c.SuspicionMaxTimeoutMult
	if c.NoSuspicion {
		// The maximum equal to the minimum: a suspicion lasts the minimum,
		// and confirmations cannot shorten it.
		conf.SuspicionMaxTimeoutMult = 1
	}
	conf.AwarenessMaxMultiplier = c.AwarenessMaxMultiplier
	if c.NoAwareness {
		conf.AwarenessMaxMultiplier = 1 // health stays 0
	}
	conf.UDPBufferSize = c.MaxMessageBytes
	conf.PushPullInterval = time.Duration(c.PushPullIntervalNs)
	conf.DisableTcpPings = !s.TCPPings
	if c.MetaBytes > 0 {
		conf.Delegate = metaDelegate{swim.DerivedMeta(name, c.MetaBytes)}
	}
}

// metaDelegate gives a node the metadata kinds/swim/swim derives for it
// (meta_bytes): memberlist carries it in every alive, as kinds/swim/swim does.
// Both cap it at 512 bytes (memberlist.MetaMaxSize, swim.MaxMetaBytes).
type metaDelegate struct{ meta []byte }

func (d metaDelegate) NodeMeta(int) []byte             { return d.meta }
func (d metaDelegate) NotifyMsg([]byte)                {}
func (d metaDelegate) GetBroadcasts(int, int) [][]byte { return nil }
func (d metaDelegate) LocalState(bool) []byte          { return nil }
func (d metaDelegate) MergeRemoteState([]byte, bool)   {}
