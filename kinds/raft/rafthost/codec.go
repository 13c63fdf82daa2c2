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
// because raft may change a message it is stepped with.
type inbound struct {
	msg  *pb.Message
	wire []byte
}

func (codec) Decode(b []byte) (any, error) {
	// The message's entries may alias the bytes decoded (pb.Unmarshal):
	// decoded from the copy, which nothing changes, they share it
	// rather than each holding a copy of its own.
	wire := append([]byte(nil), b...)
	m, err := decode(wire)
	if err != nil {
		return nil, err
	}
	return &inbound{msg: m, wire: wire}, nil
}

// decode reads one raft message and refuses what no raft peer sends:
// unknown fields, no type, a local or storage-thread type, no sender.
func decode(b []byte) (*pb.Message, error) {
	m, err := pb.Unmarshal(b)
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
