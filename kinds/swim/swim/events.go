package swim

import "strconv"

// Event is one diagnostics record. AppendJSON appends a single JSON object
// whose first member is "type": Type(), with a fixed member order. The
// simulator records events with kind_tag "swim"; docs/swim.md lists every
// event and field.
type Event interface {
	Type() string
	AppendJSON(dst []byte) []byte
}

// Reasons a state_transition gives. docs/swim.md explains each.
const (
	// ReasonInitial: the node's view at start-up (itself; every declared
	// peer for Member; its seeds for Joining).
	ReasonInitial = "initial"
	// ReasonJoin: learned from a join_request (the joiner itself) or from a
	// join_response's full state.
	ReasonJoin = "join"
	// ReasonGossip: learned from a piggybacked update.
	ReasonGossip = "gossip"
	// ReasonRefuted: a higher-incarnation alive overrode a suspect or dead
	// view (learned by gossip), or, with observer = subject, the node
	// refuted an accusation about itself by raising its incarnation.
	ReasonRefuted = "refuted"
	// ReasonProbeFailed: this node's own probe got no ack, direct or
	// indirect, by the end of the probe interval.
	ReasonProbeFailed = "probe_failed"
	// ReasonSuspicionTimeout: this node's suspicion timer expired.
	ReasonSuspicionTimeout = "suspicion_timeout"
)

// Causes a self_incarnation_bump gives.
const (
	// CauseRefuteSuspect: the node heard itself suspected.
	CauseRefuteSuspect = "refute_suspect"
	// CauseRefuteDead: the node heard itself declared dead.
	CauseRefuteDead = "refute_dead"
	// CauseRefuteAlive: the node heard an alive about itself at a higher
	// incarnation than its own (typically from a previous life).
	CauseRefuteAlive = "refute_alive"
)

// Probe modes.
const (
	ModeDirect   = "direct"
	ModeIndirect = "indirect"
)

// StateTransition is a change of this node's view of a member (itself
// included): its state, its incarnation, or both.
type StateTransition struct {
	Observer, Subject string
	From, To          State
	Incarnation       uint64
	Reason            string
}

// MessageSent is emitted for every message right before its send effect.
// Bytes is exactly len(Encode(msg)); Updates is the number of piggybacked
// updates (a join_response's member list is not counted).
//
// ID numbers the message among its sender's sends (the sender's
// messages_sent counter once it is counted: 1, 2, …) and Sender names
// that sender, so the record's "id" member, "<Sender>#<ID>", names one
// message of a run and the message_received of its delivery carries the
// same one. ID 0 is unknown (a receive whose transport did not hand the
// id over, as a real socket cannot): "id" is then absent. The id travels
// beside the wire bytes, never in them. Seq is the probe sequence number
// a ping, ack, ping_req or indirect_ack carries ("seq", absent for the
// join kinds).
type MessageSent struct {
	Peer    string
	Message MessageKind
	Bytes   int
	Updates int
	Sender  string
	ID      uint64
	Seq     uint64
}

// MessageReceived is emitted first for every message Receive is given.
type MessageReceived MessageSent

// MessageID writes a message id as records spell it: "<sender>#<n>".
func MessageID(sender string, n uint64) string {
	return string(appendMessageID(nil, sender, n))
}

func appendMessageID(dst []byte, sender string, n uint64) []byte {
	dst = append(dst, sender...)
	dst = append(dst, '#')
	return strconv.AppendUint(dst, n, 10)
}

// carriesSeq reports whether messages of kind k carry a probe seq.
func (k MessageKind) carriesSeq() bool {
	return k == Ping || k == Ack || k == PingReq || k == IndirectAck
}

// ProbeSent is one probe attempt: the direct ping, or the ping_req fan-out
// (Via names the intermediaries).
type ProbeSent struct {
	Target string
	Seq    uint64
	Mode   string
	Via    []string
}

// ProbeAcked is a probe answered: by the target's own ack (direct) or an
// intermediary's indirect_ack (indirect). RTTNs counts from the ping.
type ProbeAcked struct {
	Target string
	Seq    uint64
	Mode   string
	RTTNs  int64
}

// ProbeTimedOut is a probe deadline passed without an ack: direct when the
// probe timeout passed, indirect when the whole probe interval ended with
// no ack at all (the target becomes suspect).
type ProbeTimedOut struct {
	Target string
	Seq    uint64
	Mode   string
}

// SelfIncarnationBump is the node raising its own incarnation.
type SelfIncarnationBump struct {
	Old, New uint64
	Cause    string
}

// Type returns "state_transition".
func (*StateTransition) Type() string { return "state_transition" }

// Type returns "message_sent".
func (*MessageSent) Type() string { return "message_sent" }

// Type returns "message_received".
func (*MessageReceived) Type() string { return "message_received" }

// Type returns "probe_sent".
func (*ProbeSent) Type() string { return "probe_sent" }

// Type returns "probe_acked".
func (*ProbeAcked) Type() string { return "probe_acked" }

// Type returns "probe_timed_out".
func (*ProbeTimedOut) Type() string { return "probe_timed_out" }

// Type returns "self_incarnation_bump".
func (*SelfIncarnationBump) Type() string { return "self_incarnation_bump" }

// AppendJSON appends the event as one JSON object (see Event).
func (e *StateTransition) AppendJSON(dst []byte) []byte {
	return openObject(dst, e.Type()).str("observer", e.Observer).str("subject", e.Subject).
		str("from", e.From.String()).str("to", e.To.String()).uint("incarnation", e.Incarnation).str("reason", e.Reason).end()
}

// AppendJSON appends the event as one JSON object (see Event).
func (e *MessageSent) AppendJSON(dst []byte) []byte { return appendMessageEvent(dst, e.Type(), e) }

// AppendJSON appends the event as one JSON object (see Event).
func (e *MessageReceived) AppendJSON(dst []byte) []byte {
	return appendMessageEvent(dst, e.Type(), (*MessageSent)(e))
}

func appendMessageEvent(dst []byte, typ string, e *MessageSent) []byte {
	dst = appendTypeField(dst, typ)
	dst = appendStringField(dst, "peer", e.Peer)
	dst = appendStringField(dst, "message", e.Message.String())
	dst = appendIntField(dst, "bytes", int64(e.Bytes))
	dst = appendIntField(dst, "updates", int64(e.Updates))
	if e.ID != 0 {
		// The sender escaped as a JSON string, its closing quote moved
		// after the number.
		dst = appendJSONString(appendKey(dst, "id", false), e.Sender)
		dst = strconv.AppendUint(append(dst[:len(dst)-1], '#'), e.ID, 10)
		dst = append(dst, '"')
	}
	if e.Message.carriesSeq() {
		dst = appendUintField(dst, "seq", e.Seq)
	}
	return append(dst, '}')
}

// AppendJSON appends the event as one JSON object (see Event).
func (e *ProbeSent) AppendJSON(dst []byte) []byte {
	o := openObject(dst, e.Type()).str("target", e.Target).uint("seq", e.Seq).str("mode", e.Mode)
	if e.Mode == ModeIndirect {
		o = o.strs("via", e.Via)
	}
	return o.end()
}

// AppendJSON appends the event as one JSON object (see Event).
func (e *ProbeAcked) AppendJSON(dst []byte) []byte {
	return openObject(dst, e.Type()).str("target", e.Target).uint("seq", e.Seq).str("mode", e.Mode).int("rtt_ns", e.RTTNs).end()
}

// AppendJSON appends the event as one JSON object (see Event).
func (e *ProbeTimedOut) AppendJSON(dst []byte) []byte {
	return openObject(dst, e.Type()).str("target", e.Target).uint("seq", e.Seq).str("mode", e.Mode).end()
}

// AppendJSON appends the event as one JSON object (see Event).
func (e *SelfIncarnationBump) AppendJSON(dst []byte) []byte {
	return openObject(dst, e.Type()).uint("old", e.Old).uint("new", e.New).str("cause", e.Cause).end()
}

// EventPrototypes returns one value of every event a node records, each
// with every optional member set (a ProbeSent in indirect mode, so "via"
// is there). Viewers derive the event types and their fields from these
// prototypes' JSON, so a new event or field is listed here or a test
// fails (kinds/swim/swimhost: every record of a run must match one).
func EventPrototypes() []Event {
	return []Event{
		&StateTransition{}, &MessageSent{Message: Ping, ID: 1}, &MessageReceived{Message: Ping, ID: 1},
		&ProbeSent{Mode: ModeIndirect}, &ProbeAcked{}, &ProbeTimedOut{}, &SelfIncarnationBump{},
	}
}
