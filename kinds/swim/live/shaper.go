package live

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/detsim/detsim/internal/spool"
	"github.com/detsim/detsim/kinds/swim/live/node"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// shaper is the user-space link model between the nodes: one
// network.Network (the simulator's own, unchanged) answers every send with
// Arrive{At} or Drop for the send's elapsed time, and the shaper holds the
// datagram on a real timer until At, then writes it to the receiver's
// socket. Latency, jitter, loss, reorder, bandwidth serialisation, the
// send buffer, cold dials, idle eviction and the timed mutations are all
// the network package's decisions; the shaper only keeps time. It records
// what the engine records for the same decisions (drops, cache changes,
// dials, mutations), with the engine's bytes.
//
// One mutex serialises every question to the network, as the engine's
// single loop does, so the network sees nondecreasing times.
type shaper struct {
	mu      sync.Mutex
	net     *network.Network
	peers   []string
	clock   func() int64
	last    int64 // the latest time given to the network
	out     *spool.Sink
	envs    []bundle.Envelope // per host: engine tag
	nullEnv bundle.Envelope
	line    []byte

	held    map[uint64]*held
	ids     []*idQueue                                // per receiver: ids of datagrams written, not yet read
	running []bool                                    // per host: alive to receive
	down    []string                                  // per host: drop reason when not running ("peer_down", "peer_killed")
	addrs   []netip.AddrPort                          // per host: where its socket is
	writers []func(b []byte, to netip.AddrPort) error // per host: the socket its sends leave from, or nil
	spare   func(b []byte, to netip.AddrPort) error   // a socket for senders that are gone
	closed  bool
	sent    []int64 // shaper's own added delay samples, when measuring
	measure bool
}

// held is a datagram waiting for its arrival time.
type held struct {
	from, to int
	data     []byte
	at       int64
	dialed   bool
	cut      bool // cut in flight: only a failed dial outcome is left to report
	timer    *time.Timer
	msgID    uint64 // the sender's message id, carried beside the bytes; 0 unknown
}

// idQueue holds, for one receiver, the message ids of the datagrams
// written to its socket and not yet read, by their bytes, first in first
// out: loopback UDP hands a datagram over whole, so its bytes find its id.
// It is bounded: past maxPendingIDs the oldest go (their message_received
// then carries no id), so a receiver that stopped reading cannot grow it.
type idQueue struct {
	byData map[string][]uint64
	order  []string
}

const maxPendingIDs = 4096

func (q *idQueue) put(data []byte, id uint64) {
	k := string(data)
	q.byData[k] = append(q.byData[k], id)
	q.order = append(q.order, k)
	if len(q.order) > maxPendingIDs {
		old := q.order[0]
		q.order = q.order[1:]
		q.take(old)
	}
}

func (q *idQueue) take(k string) uint64 {
	ids := q.byData[k]
	if len(ids) == 0 {
		return 0
	}
	id := ids[0]
	if len(ids) == 1 {
		delete(q.byData, k)
	} else {
		q.byData[k] = ids[1:]
	}
	return id
}

// pending returns receiver to's id queue. Call with mu held.
func (s *shaper) pending(to int) *idQueue {
	if s.ids[to] == nil {
		s.ids[to] = &idQueue{byData: map[string][]uint64{}}
	}
	return s.ids[to]
}

// receivedID is the message id of datagram as receiver to read it from its
// socket, or 0 (node.Config.ReceivedID).
func (s *shaper) receivedID(to int, datagram []byte) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.ids[to]
	if q == nil {
		return 0
	}
	k := string(datagram)
	id := q.take(k)
	if id != 0 {
		if i := slices.Index(q.order, k); i >= 0 {
			q.order = slices.Delete(q.order, i, i+1)
		}
	}
	return id
}

func newShaper(net *network.Network, peers []string, clock func() int64, out *spool.Sink) *shaper {
	s := &shaper{
		net: net, peers: peers, clock: clock, out: out,
		held:    map[uint64]*held{},
		running: make([]bool, len(peers)),
		ids:     make([]*idQueue, len(peers)),
		down:    make([]string, len(peers)),
		addrs:   make([]netip.AddrPort, len(peers)),
		writers: make([]func([]byte, netip.AddrPort) error, len(peers)),
		nullEnv: bundle.NewEnvelope("", engine.RecordTag),
	}
	for i, p := range peers {
		s.envs = append(s.envs, bundle.NewEnvelope(p, engine.RecordTag))
		s.down[i] = "peer_down"
	}
	return s
}

// now returns the time of the next network question: the clock, never
// before the last one. Call with mu held.
func (s *shaper) now() int64 {
	s.last = max(s.last, s.clock())
	return s.last
}

// record writes one engine record at t. Call with mu held.
func (s *shaper) record(host int, t int64, ev hosts.Event) {
	env := s.nullEnv
	if host >= 0 {
		env = s.envs[host]
	}
	s.line = bundle.AppendEventLineWith(s.line[:0], t, env, ev)
	s.out.Write(append([]byte(nil), s.line...))
}

func (s *shaper) notes(t int64, notes []network.Note) {
	for _, n := range notes {
		from, to := s.peers[n.From], s.peers[n.To]
		switch n.Kind {
		case network.NoteDialStart:
			s.record(n.From, t, engine.DialStartRecord(from, to))
		case network.NoteCacheChange:
			s.record(n.From, t, engine.CacheStateChangeRecord(from, to, n.Transition, n.State))
		}
	}
}

// send offers one datagram from host from to host to; chargedBytes is what
// the link is charged (the codec's bytes, as in the simulator). It returns
// "" when the datagram is held for delivery, else the drop reason.
func (s *shaper) send(from, to int, datagram []byte, chargedBytes int, msgID uint64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "stopped"
	}
	t := s.now()
	out, notes := s.net.Send(from, to, int64(chargedBytes), t)
	s.notes(t, notes)
	if !out.Arrived {
		s.record(from, t, engine.DropOnSendRecord(s.peers[from], s.peers[to], out.Reason, msgID))
		return out.Reason.String()
	}
	h := &held{from: from, to: to, data: append([]byte(nil), datagram...), at: out.At, dialed: out.Dialed, msgID: msgID}
	s.held[out.ID] = h
	id := out.ID
	h.timer = time.AfterFunc(time.Duration(out.At-s.clock()), func() { s.deliver(id) })
	return ""
}

// deliver writes a held datagram to its receiver at its arrival time.
// The bench's memberlist witness delivers its own held datagrams in the
// same steps, alike in shape: a test's copy over memberlist's transport,
// which this package does not import.
func (s *shaper) deliver(id uint64) {
	s.mu.Lock()
	h, ok := s.held[id]
	if !ok || s.closed {
		s.mu.Unlock()
		return
	}
	delete(s.held, id)
	t := s.now()
	from, to := s.peers[h.from], s.peers[h.to]
	if h.cut {
		s.record(h.from, t, engine.DialOutcomeRecord(from, to, false))
		s.mu.Unlock()
		return
	}
	if h.dialed {
		s.record(h.from, t, engine.DialOutcomeRecord(from, to, true))
	}
	if !s.running[h.to] {
		s.record(h.to, t, engine.DropOnDeliveryRecord(from, to, s.down[h.to], h.msgID))
		s.mu.Unlock()
		return
	}
	if h.msgID != 0 {
		s.pending(h.to).put(h.data, h.msgID)
	}
	if s.measure {
		s.sent = append(s.sent, t-h.at)
	}
	write, addr := s.writers[h.from], s.addrs[h.to]
	if write == nil {
		write = s.spare
	}
	s.mu.Unlock()
	if write != nil {
		_ = write(h.data, addr) // UDP: a failed write is a lost datagram
	}
}

// mutate applies the scenario's index-th mutation at the current time:
// the record, the network's cuts (each a drop_on_delivery now, and a
// failed dial outcome at its arrival time when it paid a dial) and its
// cache notes. A PeerKill marks the peer not running before any later
// delivery can reach it.
func (s *shaper) mutate(index int, m *network.Mutation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.now()
	s.record(-1, t, engine.MutationRecord(index, m))
	cut, notes := s.net.ApplyMutation(m, t)
	for _, c := range cut {
		h, ok := s.held[c.ID]
		if !ok || h.cut {
			continue // delivered already
		}
		s.record(c.To, t, engine.DropOnDeliveryRecord(s.peers[c.From], s.peers[c.To], c.Reason.String(), h.msgID))
		if c.Dialed {
			h.cut = true // its timer reports the failed dial at arrival
			continue
		}
		h.timer.Stop()
		delete(s.held, c.ID)
	}
	s.notes(t, notes)
}

// setRunning marks host i able to receive (with its socket's address and
// writer) or not (with the reason its deliveries are dropped).
func (s *shaper) setRunning(i int, up bool, addr netip.AddrPort, write func([]byte, netip.AddrPort) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running[i] = up
	if up {
		s.addrs[i], s.writers[i] = addr, write
	} else {
		s.down[i], s.writers[i] = "peer_killed", nil
	}
}

// startFailed records that host i's next life did not begin (err) and
// keeps it down: its deliveries are dropped as peer_down. It returns the
// record's reason.
func (s *shaper) startFailed(i int, err error) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	reason := "start_failed"
	if errors.Is(err, node.ErrPortInUse) || strings.Contains(err.Error(), node.ErrPortInUse.Error()) {
		reason = "port_in_use" // a swimd child says so on its stderr
	}
	s.running[i], s.down[i], s.writers[i] = false, "peer_down", nil
	s.record(i, s.now(), &PeerStartFailed{Peer: s.peers[i], Reason: reason, Err: err.Error()})
	return reason
}

// close stops every held datagram; nothing is delivered after it.
func (s *shaper) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for id, h := range s.held {
		h.timer.Stop()
		delete(s.held, id)
	}
}
