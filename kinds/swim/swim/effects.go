package swim

// EffectKind says what an Effect asks the caller to do.
type EffectKind uint8

const (
	// EffectSend: deliver Msg to the member To (encode it with Encode;
	// the node already accounted for len(Encode(Msg)) in its events).
	EffectSend EffectKind = iota + 1
	// EffectTimer: call TimerFired(Token, t) at virtual time At (or as
	// soon as possible after). Timers are never cancelled; a stale token
	// is recognised and ignored.
	EffectTimer
	// EffectEvent: record the diagnostics Event at the current time.
	EffectEvent
)

// Transport says how an EffectSend's message travels.
type Transport uint8

const (
	// Packet is a datagram (UDP): every message but the fallback probe's.
	Packet Transport = iota
	// StreamOpen opens a reliable stream (TCP) to To and sends Msg on it:
	// the fallback probe's ping (Config.FallbackProbe).
	StreamOpen
	// StreamReply sends Msg back on the stream the message being answered
	// came in on (ReceiveStream): the fallback probe's ack.
	StreamReply
)

// Effect is one thing the node wants done, in the order it happened.
// A send's ID is the message's id, the one its message_sent names: a
// transport that can carry it beside the bytes hands it to the receiver's
// ReceiveID.
type Effect struct {
	Kind  EffectKind
	To    string
	Msg   *Message
	ID    uint64
	At    int64
	Token uint64
	Event Event
	// Transport is how an EffectSend travels; Packet unless the node
	// asks for a stream.
	Transport Transport
}

// Output receives a node's effects one by one as they happen, in the
// order they happen, instead of the node collecting them into the Effect
// slice its calls return (SetOutput). An embedder that turns effects into
// values of its own saves building that slice, which for a node joining a
// thousand-member cluster is a thousand entries long. The same rules
// hold: a message or event handed over is the caller's from then on. A
// send's id is the Effect's ID.
type Output interface {
	Send(to string, msg *Message, id uint64)
	Timer(at int64, token uint64)
	Event(e Event)
}

// StreamOutput is an Output that can also send over a reliable stream.
// A node with Config.FallbackProbe hands its stream sends to SendStream;
// an Output without it gets them through Send, as datagrams (a transport
// with no streams: the fallback is then a second direct ping).
type StreamOutput interface {
	Output
	SendStream(to string, msg *Message, t Transport, id uint64)
}

// SetOutput makes the node hand its effects to o as they happen; its calls
// then return no effects. A nil o restores the returned slice. A clone
// (Clone) starts without an Output.
func (n *Node) SetOutput(o Output) { n.output = o }

func (n *Node) emit(e Event) {
	if n.output != nil {
		n.output.Event(e)
		return
	}
	n.out = append(n.out, Effect{Kind: EffectEvent, Event: e})
}

func (n *Node) arm(at int64, token uint64) {
	if n.output != nil {
		n.output.Timer(at, token)
		return
	}
	n.out = append(n.out, Effect{Kind: EffectTimer, At: at, Token: token})
}

func (n *Node) sendEffect(to string, msg *Message, id uint64) {
	if n.output != nil {
		n.output.Send(to, msg, id)
		return
	}
	n.out = append(n.out, Effect{Kind: EffectSend, To: to, Msg: msg, ID: id})
}

// streamEffect emits a send over a reliable stream; id as for sendEffect.
func (n *Node) streamEffect(to string, msg *Message, t Transport, id uint64) {
	if n.output != nil {
		if so, ok := n.output.(StreamOutput); ok {
			so.SendStream(to, msg, t, id)
		} else {
			n.output.Send(to, msg, id)
		}
		return
	}
	n.out = append(n.out, Effect{Kind: EffectSend, To: to, Msg: msg, Transport: t, ID: id})
}

// Timer tokens: the top byte says what the timer is for, the low 56 bits
// identify the instance, so a timer that outlived its purpose (an answered
// probe, a suspicion that was refuted or shortened) is recognised as stale.
const (
	timerProbeTimeout  = 1 // payload: probe seq (low 56 bits)
	timerProbeDeadline = 2 // payload: probe seq (low 56 bits)
	timerRelay         = 3 // payload: the relay ping's seq (low 56 bits)
	timerSuspicion     = 4 // payload: member index << 32 | generation

	tokenPayloadMask = 1<<56 - 1
)

func token(kind uint64, payload uint64) uint64 { return kind<<56 | payload&tokenPayloadMask }

func suspicionToken(idx int32, gen uint32) uint64 {
	return token(timerSuspicion, uint64(idx)<<32|uint64(gen))
}
