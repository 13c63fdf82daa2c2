// Package hosts defines what a simulated peer is (spec §6): the Host
// interface the engine drives, the closed set of Actions a host returns, the
// Messages it receives, the diagnostics Events it records, the host kind
// contract (Kind, the runtime every kind provides, and the small optional
// interfaces for the rest, which the core finds by type assertion:
// kind.go) and the registry of kinds the scenario loader validates
// against and the engine builds from. It holds no simulation logic of its
// own, and imports nothing of the core but rng (internal/arch).
package hosts

// Host is one peer's code. The engine calls it only from its single
// dispatch loop with the current virtual time in nanoseconds; a host never
// reads any other clock, never does I/O and never starts a goroutine.
type Host interface {
	// ID is the peer id the scenario declared.
	ID() string
	// Kind is the host kind's tag ("echo", "swim", ...).
	Kind() string
	// Tick is called at the host's tick instants.
	Tick(now int64) []Action
	// Recv is called when a delivery, timer or send failure for this host
	// pops from the queue.
	Recv(msg Message, now int64) []Action
	// Snapshot returns the host's introspection state (spec §9.3) as JSON.
	Snapshot() []byte
	// Clone returns a deep copy sharing no mutable state with the
	// original; the engine's checkpoints depend on it.
	Clone() Host
}

// Trimmer is a Host that can release the buffers a large batch of
// actions grew. The engine calls Trim after it has consumed a call's
// actions, when there were more than a few hundred: the actions and
// everything they point at are no longer needed, and a thousand hosts
// each holding their start-up burst (one initial state_transition per
// member) until their next call would otherwise be hundreds of megabytes
// alive at once.
type Trimmer interface {
	Trim()
}

// Dozer is a Host that can say when its next Tick can do anything.
// TickDue returns the earliest virtual time at which Tick would return
// an action or change the host's state: a Tick before it returns no
// actions and changes nothing, so the engine skips the call and keeps
// the tick's place in the queue (the step, its chain and every record
// stay what they were). The answer holds until the host's next call of
// any kind. Most ticks of a SWIM host probing every few seconds on a
// 100 ms tick find nothing due (docs/BENCHMARKS.md, "A sweep does only
// what a seed needs").
type Dozer interface {
	TickDue() int64
}

// Inspector is a Host that tells viewers more about itself than its
// snapshot holds. Only viewers call it (the stepper, between steps), never
// the engine in a run, and it changes nothing: a run is the same whether
// it is called or not.
type Inspector interface {
	// DescribeTimer says what the timer the host armed with token is for
	// ("probe timeout → b #12", "suspicion of c"); "" if it cannot say.
	DescribeTimer(token uint64) string
	// Inspect returns one JSON object of what a viewer may show beyond
	// the snapshot, lists cut to at most limit entries (the kind's docs
	// give its members).
	Inspect(limit int) []byte
}

// Action is what a host asks the engine to do. It is a closed sum of four
// variants, built only by Send, Record, Timer and HaltAction: the engine
// panics on any other value (the zero Action included), because silently
// dropping an action is the class of bug the simulator exists to catch
// (spec §3.2). Actions are plain values rather than interfaces so that a
// host returning thousands of them per virtual second allocates nothing.
type Action struct {
	kind  ActionKind
	to    string
	msg   any
	event Event
	at    int64
	token uint64
	via   Transport // ActSend: how the message travels
}

// Transport says how an ActSend travels (docs/decisions.md, "The reliable
// path"). The zero value is a datagram, what every Send is unless a host
// asks otherwise.
type Transport uint8

const (
	// Datagram is the lossy path (UDP): the network's Send.
	Datagram Transport = iota
	// StreamOpen opens a reliable stream (TCP) and sends on it: never
	// lost, one handshake round trip later, cut by partitions and kills.
	StreamOpen
	// StreamReply answers on the stream a reliable delivery came in on
	// (Delivery.Reliable): never lost, no handshake.
	StreamReply
)

// ActionKind names an Action's variant.
type ActionKind uint8

const (
	// ActSend asks the engine to encode Msg with the host kind's codec and
	// offer it to the network on the edge to To. The engine encodes it
	// before calling the host again, so a host may reuse the message value.
	ActSend ActionKind = iota + 1
	// ActRecord asks the engine to append Event to the run's event stream
	// at the current virtual time, tagged with the host's id and kind. The
	// engine serialises it before calling the host again, so a host may
	// reuse the event value.
	ActRecord
	// ActTimer asks the engine to deliver TimerFired{Token} through Recv
	// at virtual time At (clamped to now if in the past).
	ActTimer
	// ActHalt returned from Tick stops the host's ticks; returned from
	// Recv it stops deliveries too. Only a PeerResurrect undoes it.
	ActHalt
)

// Send is the ActSend action.
func Send(to string, msg any) Action { return Action{kind: ActSend, to: to, msg: msg} }

// SendID is the ActSend action of a message the host numbered id among
// its sends (1, 2, …; its records name it "<host>#<id>"). The engine
// carries the id beside the wire bytes, never in them, hands it to the
// receiver as Delivery.ID and writes it in the records about the message
// (drop_on_send, drop_on_delivery, decode_error). 0 is no id, as Send.
func SendID(to string, msg any, id uint64) Action {
	return Action{kind: ActSend, to: to, msg: msg, token: id}
}

// SendReliable is the ActSend action over a new reliable stream
// (StreamOpen): memberlist's TCP fallback ping. id as for SendID.
func SendReliable(to string, msg any, id uint64) Action {
	return Action{kind: ActSend, to: to, msg: msg, via: StreamOpen, token: id}
}

// ReplyReliable is the ActSend action back over the stream a reliable
// delivery from to came in on (StreamReply). id as for SendID.
func ReplyReliable(to string, msg any, id uint64) Action {
	return Action{kind: ActSend, to: to, msg: msg, via: StreamReply, token: id}
}

// Record is the ActRecord action.
func Record(ev Event) Action { return Action{kind: ActRecord, event: ev} }

// Timer is the ActTimer action.
func Timer(at int64, token uint64) Action { return Action{kind: ActTimer, at: at, token: token} }

// HaltAction is the ActHalt action.
func HaltAction() Action { return Action{kind: ActHalt} }

// Kind reports the variant; 0 for a zero Action, which is never valid.
func (a Action) Kind() ActionKind { return a.kind }

// To is an ActSend's destination peer id.
func (a Action) To() string { return a.to }

// Msg is an ActSend's application message.
func (a Action) Msg() any { return a.msg }

// Transport is how an ActSend travels (Datagram unless built by
// SendReliable or ReplyReliable).
func (a Action) Transport() Transport { return a.via }

// Event is an ActRecord's event.
func (a Action) Event() Event { return a.event }

// At is an ActTimer's due time.
func (a Action) At() int64 { return a.at }

// Token is an ActTimer's token.
func (a Action) Token() uint64 { return a.token }

// ID is an ActSend's message id (SendID), 0 if none.
func (a Action) ID() uint64 {
	if a.kind != ActSend {
		return 0
	}
	return a.token
}

// Message is what Recv receives: a *Delivery, a *TimerFired, a
// *SendFailed, or (for a kind whose Canceller says so) a *Cancel.
// NB: the engine reuses the pointed-to value for the next
// call, so a host must copy what it wants to keep, never the pointer.
type Message interface{ isMessage() }

// Delivery is an application message that crossed the network, already
// decoded by the host kind's codec.
type Delivery struct {
	From    string
	Payload any
	// ID is the id the sender gave the message (SendID), 0 if none: it
	// travels beside the bytes, so the receiver can name the same message.
	ID uint64
	// Reliable says it came over a reliable stream (SendReliable or
	// ReplyReliable); ReplyReliable answers on that stream.
	Reliable bool
}

// TimerFired is a timer the host scheduled coming due.
type TimerFired struct{ Token uint64 }

// SendFailed tells a sender the network refused its send at send time
// (no route, partitioned, lost). Reason is the drop reason's name.
type SendFailed struct {
	To     string
	Reason string
}

// Cancel is a Cancel mutation aimed at this host (an amendment to spec
// §5.5, docs/decisions.md): cancel whatever is in progress, settle every
// pending effect with an explicit outcome. The engine delivers it only to
// a running host of a Cancellable kind (Canceller), at the
// mutation's instant, between two of its other calls: so at a chunk
// boundary of anything the host is receiving.
type Cancel struct{}

// Durable is a Host with state that outlives its process: a disk. When a
// PeerResurrect with preserve_state = false builds a fresh host for a
// peer, and both the previous life and the new host are Durable, the
// engine calls Recover on the new host with the previous life's Durable
// bytes before its first tick. The bytes are a value (the engine keeps
// no reference), so checkpoints stay correct through Clone: a restored
// engine holds the old life's clone, which yields the same bytes.
type Durable interface {
	// Durable returns what survives a crash: bytes the host wrote to its
	// store and was told were written, nothing held only in memory.
	Durable() []byte
	// Recover loads a previous life's Durable bytes into a fresh host.
	Recover(b []byte)
}

// Restarter is a Host told when each of its lives begins, so a kind
// whose process and disk are distinct (raft: a crash loses memory, not
// what was fsynced) can tell a restart from a pause. The engine calls
// Started before any other call of a life, at the instant it begins:
// after New (and Recover) for a fresh life, with resumed false; and when
// a PeerResurrect with preserve_state = true revives the killed host,
// with resumed true: its process restarted at now, and it keeps what
// its own disk held and nothing else. A host that is not a Restarter
// resumes with its memory, as every kind did before (docs/decisions.md,
// "Restarts a kind can tell apart").
type Restarter interface {
	Started(now int64, resumed bool)
}

func (*Delivery) isMessage()   {}
func (*Cancel) isMessage()     {}
func (*TimerFired) isMessage() {}
func (*SendFailed) isMessage() {}

// Event is one diagnostics record payload. AppendJSON appends the event as
// a single JSON object whose first member is "type": Type(), with a fixed
// member order, so the bytes written for an event never depend on map
// order or encoder internals. The engine calls both before it calls the
// host again, so hosts may hand out pointers to reused event values.
type Event interface {
	Type() string
	AppendJSON(dst []byte) []byte
}

// Folded is an Event that stands for a run of Len records at one instant
// from one host, which differ only in the value of one string member of
// the event, FoldMember: record i is At(i), whose member has the value
// FoldValue(i). Type and AppendJSON are At(0)'s. A bundle writer that
// takes folds writes the run as one events.ndjson line (docs/bundle.md,
// "Folded lines") that every reader expands back into the Len lines it
// stands for, with their line numbers; everyone else (a judge, a sink, a
// tap) is handed At(0) … At(Len-1) one by one, so nothing but the file
// knows a run was folded (docs/decisions.md, "One folded line, expanded at
// one point"). The engine reads all of it before it calls the host again,
// and each At(i) before the next At call, so At may reuse one value.
type Folded interface {
	Event
	Len() int
	At(i int) Event
	FoldMember() string
	FoldValue(i int) string
}

// ValidPeerID reports whether id is a peer id as a scenario may declare
// it: [A-Za-z0-9_-]{1,64}. The bundle writer, the daemons' --id and the
// stepper's queries check ids with it: an id becomes a path component in
// a bundle, so "..", "/" or "" must never pass.
func ValidPeerID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !PeerIDByte(id[i]) {
			return false
		}
	}
	return true
}

// PeerIDByte reports whether c may stand in a peer id: A-Z a-z 0-9 _ -.
func PeerIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
