package network

import "github.com/detsim/detsim/internal/checked"

// Send answers one send query (spec §5.4 as amended by DESIGN §4): whether
// a byteLen-byte message offered on from→to at sentAt arrives, and when.
// It updates the edge's state as it answers.
//
// The returned notes (cache changes, dial start) are in the order they
// happened; the slice is a buffer reused by the next Send, so the caller
// must consume it before calling Send again.
//
// With the edge's MTU set (docs/network.md, "MTU and fragmentation") the
// message is a UDP datagram of byteLen bytes: one over MaxDatagramBytes is
// refused (TooLarge); otherwise it travels as k IPv4 fragments, is lost
// when any fragment is, with probability 1 − (1 − p)^k for the edge's
// per-packet loss p (datagramLossPPM, exact in integers), and occupies
// the wire and the send buffer for its bytes plus 8 + 20k header bytes.
// With MTU 0 it is one unit of byteLen bytes, lost with probability p.
//
// Draws: a send refused by NoRoute, TooLarge, Partitioned or BufferFull
// draws nothing; a lost send draws exactly one value (the loss draw, one
// for the whole datagram however many fragments it has); an arriving send
// draws exactly four, in this order: loss, jitter, reorder, reorder
// extra. The extra delay is drawn whether or not the reorder fires, so a
// policy edit never shifts the draws of later sends on the same edge.
func (n *Network) Send(from, to int, byteLen int64, sentAt int64) (Outcome, []Note) {
	return n.send(from, to, byteLen, sentAt, datagram)
}

// SendReliable answers a send query on a reliable stream (TCP) instead
// of a datagram: the contract addition of docs/decisions.md ("The
// reliable path"), for memberlist's fallback probe. It is Send without
// the loss draw and without reorder (a stream delivers in order and
// retransmits what is lost, which this model does not time; no reliable
// send arrives before the one sent on the edge before it), and with
// one extra leg of latency when handshake is set: the stream's opening
// round trip, SYN on from→to and SYN-ACK on to→from, each leg the edge's
// policy latency (scaled by a LatencySpike active on it; no jitter),
// before the data goes. A reply on a stream the other side opened passes
// handshake = false. Everything else is as Send: the idle rule, NoRoute,
// Partitioned (a connection cannot cross a partition: the dial fails,
// which the sender sees as a send failure and no answer), the send
// buffer, bandwidth serialisation on the edge's one wire behind whatever
// is queued there, clamped jitter, the relay floor, the cold dial, the
// cache. A handshake needs the way back: with no edge to→from the send is
// Drop(NoRoute). With the edge's MTU set, the stream cuts the bytes into
// segments of at most MSS = MTU − 40 bytes, each with a 40-byte IPv4 and
// TCP header on the wire and in the send buffer; a segment is never
// fragmented and a stream has no size limit, so there is neither
// per-fragment loss nor TooLarge (docs/network.md, "The reliable path").
//
// Draws: refused sends draw nothing; an arriving one draws exactly one
// value, the jitter, from the edge's substream.
func (n *Network) SendReliable(from, to int, byteLen int64, sentAt int64, handshake bool) (Outcome, []Note) {
	if handshake {
		return n.send(from, to, byteLen, sentAt, streamOpen)
	}
	return n.send(from, to, byteLen, sentAt, stream)
}

// carriage is how a send travels: the one difference between Send and
// SendReliable.
type carriage uint8

const (
	datagram   carriage = iota // Send: loss per fragment, reorder, TooLarge
	stream                     // SendReliable on a stream already open
	streamOpen                 // SendReliable opening its stream: a handshake first
)

// send is Send and SendReliable: one path, steps numbered as in
// docs/network.md, with the datagram's loss and reorder and the stream's
// handshake where c says. One function rather than shared helpers: Send
// is the network's hot path, and the calls cost it 7 % (BenchmarkSend).
func (n *Network) send(from, to int, byteLen, sentAt int64, c carriage) (Outcome, []Note) {
	n.sendNotes = n.sendNotes[:0]
	n.observe(sentAt)

	e := n.edge(from, to)
	if e == nil { // step 1
		return Outcome{Reason: NoRoute}, n.sendNotes
	}
	var back *edgeState
	if c == streamOpen { // a handshake needs the way back
		if back = n.edge(to, from); back == nil {
			return Outcome{Reason: NoRoute}, n.sendNotes
		}
		e = n.existing(from, to) // making a mesh's back edge may have moved e
	}
	p := &n.policies[e.policy]
	f := n.use(e) // a refused send makes a flow but draws nothing
	f.prune(sentAt)
	if f.idledOut(p, sentAt) { // the idle rule runs before every other step
		n.cool(f)
		n.sendNotes = append(n.sendNotes, cacheNote(e, f, IdledOut))
	}
	if c == datagram && p.MTUBytes > 0 && byteLen > MaxDatagramBytes { // step 1b: EMSGSIZE
		return Outcome{Reason: TooLarge}, n.sendNotes
	}
	if f.partitioned { // step 2
		return Outcome{Reason: Partitioned}, n.sendNotes
	}
	var wire, k int64 // bytes on the wire, and a datagram's fragments
	if c == datagram {
		wire, k = datagramWire(byteLen, p.MTUBytes)
	} else {
		wire = streamWire(byteLen, p.MTUBytes)
	}
	if f.bufferFull(p, wire, sentAt) { // step 2b (DESIGN §8): the socket refuses it
		return Outcome{Reason: BufferFull}, n.sendNotes
	}

	n.draws(e, f)
	s := &f.stream
	if c == datagram {
		lossPPM := p.LossProbPPM // step 3, per fragment: one draw for the datagram
		if burst, ok := f.active(LossBurst, sentAt); ok {
			lossPPM = burst.value
		}
		if s.Chance(n.lossMemo.lossPPM(lossPPM, k)) {
			return Outcome{Reason: Lossy}, n.sendNotes
		}
	}
	jitter := s.Normal(p.JitterStddevNs)
	var reorders bool
	var extraDraw uint64 // drawn whether or not it is used (docs/network.md)
	if c == datagram {
		if reorders = s.Chance(p.ReorderProbPPM); reorders {
			extraDraw = s.Uint64()
		} else {
			s.Skip()
		}
	}

	// Step 4: the link's rate, its headers included (a serialising wire,
	// or a token bucket with burst_bytes); latency, jitter and reorder
	// delay happen after and never hold it.
	var last int64 // the last fragment's or segment's bytes: only a bucket reads it
	if p.BurstBytes > 0 {
		if c == datagram {
			last = lastFragmentWire(wire, k, p.MTUBytes)
		} else {
			last = lastSegmentWire(wire, p.MTUBytes)
		}
	}
	left := f.occupy(p, wire, last, sentAt)

	// Steps 5–6: negative jitter is clamped so nothing arrives before it
	// has left; a spike scales the clamped latency+jitter.
	propagation := max(checked.Add(p.LatencyNs, jitter), 0)
	if spike, ok := f.active(LatencySpike, sentAt); ok {
		propagation = checked.MulDiv(propagation, spike.value, 100)
	}
	arrival := checked.Add(left, propagation)
	if back != nil { // the handshake's SYN and SYN-ACK legs
		arrival = checked.Add(arrival, checked.Add(n.legNs(e, f, sentAt), n.legNs(back, n.flowOf(back), sentAt)))
	}

	if relay, ok := f.active(RelayBuffer, sentAt); ok { // step 7
		arrival = max(arrival, checked.Add(sentAt, relay.value))
	}

	dialed := f.state == Cold // step 8
	if dialed {
		arrival = checked.Add(arrival, p.ColdDialPenaltyNs)
		f.state, f.warmingSince = Warming, sentAt
		n.notCold++
		n.sendNotes = append(n.sendNotes,
			Note{From: int(e.from), To: int(e.to), Kind: NoteDialStart},
			cacheNote(e, f, Dialed))
	}

	if reorders { // step 9: one to two latency+jitter units of extra delay
		unit := p.reorderUnitNs()
		extra := checked.Add(unit, int64(below(extraDraw, uint64(unit)+1)))
		arrival = checked.Add(arrival, extra)
	}

	if c != datagram {
		// A stream delivers its bytes in order: a segment that comes
		// early waits in the receiver's buffer for those before it. Jitter
		// would otherwise let a later send overtake, and the data after a
		// handshake arrive before the data that opened the stream.
		arrival = max(arrival, f.lastStreamArrivalNs)
		f.lastStreamArrivalNs = arrival
	}

	f.lastSendNs = sentAt // step 10
	if f.state == Warming && checked.Sub(sentAt, f.warmingSince) >= p.CacheWarmAfterNs {
		f.state = Warm
		n.sendNotes = append(n.sendNotes, cacheNote(e, f, Warmed))
	}

	id := n.nextID // step 11
	n.nextID++
	f.inFlight = append(f.inFlight, delivery{id: id, at: arrival, dialed: dialed})
	return Outcome{Arrived: true, At: arrival, ID: id, Dialed: dialed}, n.sendNotes
}

// legNs is one handshake leg on e (whose flow, possibly nil, is f) at t:
// the policy latency, scaled by a LatencySpike active on the edge.
func (n *Network) legNs(e *edgeState, f *edgeFlow, t int64) int64 {
	leg := n.policies[e.policy].LatencyNs
	if spike, ok := f.active(LatencySpike, t); ok {
		leg = checked.MulDiv(leg, spike.value, 100)
	}
	return leg
}

// cacheNote reports e's transition into its current state, held in f.
func cacheNote(e *edgeState, f *edgeFlow, t Transition) Note {
	return Note{From: int(e.from), To: int(e.to), Kind: NoteCacheChange, Transition: t, State: f.state}
}

// draws derives e's substream, whose flow is f, on its first use. A
// substream is a pure function of (seed, from, to), so deriving it late
// changes no draw; a thousand-peer mesh has a million edges, most of
// which never carry a message in a short run.
func (n *Network) draws(e *edgeState, f *edgeFlow) {
	if !f.drawn {
		f.stream, f.drawn = *n.root.Link(n.peers[e.from], n.peers[e.to]), true
	}
}
