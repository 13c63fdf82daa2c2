package rafthost

import (
	"errors"
	"fmt"
	"strconv"

	etcd "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"
	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// codec is raftpb's own marshalling (raftseam/raftpb.AppendMarshal): the
// bytes etcd's transport frames for a raft message, so the network
// charges what production sends.
//
// Alike in shape to every kind's codec: each hands the message to its own
// protocol's marshalling.
type codec struct{}

func (codec) Append(b []byte, m any) ([]byte, error) {
	msg, ok := m.(*pb.Message)
	if !ok {
		return b, fmt.Errorf("rafthost: cannot encode %T", m)
	}
	return pb.AppendMarshal(b, msg)
}

// inbound is a decoded message and a copy of the bytes it came from: the
// host's input log keeps the bytes to replay the delivery (replay.go),
// because raft may change a message it is stepped with. spare is the
// rest of the block the copies are cut from, blocks those the messages
// and their entries are cut from (DecodeInto).
type inbound struct {
	msg    *pb.Message
	wire   []byte
	spare  []byte
	blocks pb.Blocks
}

func (c codec) Decode(b []byte) (any, error) { return c.DecodeInto(b, nil) }

// DecodeInto makes codec a hosts.ReusingCodec: a host reads the inbound
// within Recv and keeps only its message and its bytes, never the
// inbound itself (host.Recv), so the engine hands each host's deliveries
// in one inbound, reused. The copies of the bytes are cut from a block
// the inbound carries from delivery to delivery rather than allocated
// one by one: each copy is kept as long as its host lives (the input
// log), and nothing writes to it or to the block's unused rest, so
// copies sharing a block never see each other. A block and a wrapper a
// delivery were two of the run's 3.4 million allocations a delivery
// (docs/BENCHMARKS.md, "Deliveries cut from blocks").
//
// The message and its entries are cut from blocks too (pb.Blocks), not
// reused: etcd's raft keeps what it is stepped with past the call — the
// entries in its unstable log and MemoryStorage, the message itself
// when it forwards a proposal or holds a read, pointers to its fields
// in the responses it queues — so nothing decoded is ever written again
// (docs/raft.md, "The codec").
func (codec) DecodeInto(b []byte, into any) (any, error) {
	in, ok := into.(*inbound)
	var blocks *pb.Blocks // Decode's only message: allocated alone
	if ok {
		blocks = &in.blocks
	} else {
		in = new(inbound)
	}
	// The message's entries may alias the bytes decoded (pb.Unmarshal):
	// decoded from the copy, which nothing changes, they share it
	// rather than each holding a copy of its own.
	wire := in.copyOf(b)
	m, err := peerMessage(blocks.Unmarshal(wire))
	if err != nil {
		return nil, err
	}
	in.msg, in.wire = m, wire
	return in, nil
}

// wireBlock is the block the copies of deliveries' bytes are cut from; a
// message longer than a quarter of it gets an array of its own, so a
// block wastes at most a quarter.
const wireBlock = 32 << 10

// copyOf is a copy of b, cut from the inbound's block, its capacity its
// length: an append to it can never reach the next copy. An inbound's
// first copy (Decode's only one) is an array of its own: a block pays
// only for an inbound the engine reuses.
func (in *inbound) copyOf(b []byte) []byte {
	n := len(b)
	if n > cap(in.spare) {
		if in.wire == nil || n > wireBlock/4 {
			return append([]byte(nil), b...)[:n:n]
		}
		in.spare = make([]byte, 0, wireBlock)
	}
	c := append(in.spare[:0], b...)
	in.spare = in.spare[n:n:cap(in.spare)]
	return c[:n:n]
}

// decode reads one raft message and refuses what no raft peer sends:
// unknown fields, no type, a local or storage-thread type, no sender.
func decode(b []byte) (*pb.Message, error) { return peerMessage(pb.Unmarshal(b)) }

// peerMessage is decode's refusals of a message read (m, err).
func peerMessage(m *pb.Message, err error) (*pb.Message, error) {
	if err != nil {
		return nil, fmt.Errorf("raft message: %w", err)
	}
	if _, known := pb.MessageType_name[int32(m.GetType())]; !known {
		return nil, fmt.Errorf("raft message: unknown type %d", m.GetType())
	}
	if etcd.IsLocalMsg(m.GetType()) {
		return nil, fmt.Errorf("raft message: %s never crosses the network", m.GetType())
	}
	if m.GetFrom() == 0 {
		return nil, errors.New("raft message: no sender")
	}
	return m, nil
}

// describe names a message from its wire bytes for the stepper's queue
// pane: "MsgApp t5 i120 +3".
func describe(b []byte) string {
	m, err := decode(b)
	if err != nil {
		return ""
	}
	s := m.GetType().String() + " t" + strconv.FormatUint(m.GetTerm(), 10)
	if pb.HasIndex(m) {
		s += " i" + strconv.FormatUint(m.GetIndex(), 10)
	}
	if n := len(m.GetEntries()); n > 0 {
		s += " +" + strconv.Itoa(n)
	}
	if m.GetReject() {
		s += " reject"
	}
	return s
}
