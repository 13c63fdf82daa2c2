//go:build !raft36

package raftpb

import (
	"errors"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// An alias list like names.go's, apart from it on purpose: pb36.go
// defines these names instead of aliasing them.

// Not in names.go: v3.6's build renames these to carry v3.7's getters
// (pb36.go), so each release names them on its own.
type (
	Message          = pb.Message
	Entry            = pb.Entry
	HardState        = pb.HardState
	Snapshot         = pb.Snapshot
	SnapshotMetadata = pb.SnapshotMetadata
	ConfState        = pb.ConfState
)

var marshal = proto.MarshalOptions{Deterministic: true}

// AppendMarshal appends m's wire form, raftpb's own marshalling.
// Deterministic marshalling only fixes map order, which a Message has
// none of; it is asked for anyway so a future field cannot make two
// processes disagree.
// The shapes peers send are written by wire37.go, byte for byte the same.
func AppendMarshal(b []byte, m *Message) ([]byte, error) {
	if fastShape(m) {
		return appendFast(b, m), nil
	}
	return marshal.MarshalAppend(b, m)
}

// Unmarshal reads one message, refusing unknown fields and a message
// without a type. The message's entry data and context may alias b: the
// caller keeps b unchanged for as long as the message lives.
func Unmarshal(b []byte) (*Message, error) { return (*Blocks)(nil).Unmarshal(b) }

// Unmarshal is the package's Unmarshal, the message and its entries cut
// from blk's blocks when it takes the fast path.
func (blk *Blocks) Unmarshal(b []byte) (*Message, error) {
	if m, ok := decodeFast(b, blk); ok {
		if m.Type == nil {
			return nil, errors.New("no type")
		}
		return m, nil
	}
	m := new(Message)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, err
	}
	if len(m.ProtoReflect().GetUnknown()) > 0 {
		return nil, errors.New("unknown fields")
	}
	if m.Type == nil {
		return nil, errors.New("no type")
	}
	return m, nil
}

// typeNames is MessageType_name by number.
var typeNames = func() []string {
	var names []string
	for t, name := range MessageType_name { //detlint:allow maprange each name goes to its own index
		if t >= 0 && t < 64 {
			names = append(names, make([]string, max(0, int(t)+1-len(names)))...)
			names[t] = name
		}
	}
	return names
}()

// TypeName is t.String() without protobuf's reflection, which cost a
// tenth of a message record's making.
func TypeName(t MessageType) string {
	if uint(t) < uint(len(typeNames)) && typeNames[t] != "" {
		return typeNames[t]
	}
	return t.String()
}

// NewProp is a MsgProp carrying one entry of data.
func NewProp(from, to uint64, data []byte) *Message {
	return &Message{Type: MsgProp.Enum(), From: &from, To: &to, Entries: []*Entry{{Data: data}}}
}

// NewVoteResp is a granted vote (or pre-vote) response.
func NewVoteResp(typ MessageType, from, to, term uint64) *Message {
	f := false
	return &Message{Type: typ.Enum(), To: &to, From: &from, Term: &term, Reject: &f}
}

// NewSnapshot is an empty snapshot of conf at index and term (nil: not
// set).
func NewSnapshot(index, term *uint64, conf *ConfState) *Snapshot {
	return &Snapshot{Metadata: &SnapshotMetadata{Index: index, Term: term, ConfState: conf}}
}

// CloneEntry is a deep copy of e.
func CloneEntry(e *Entry) *Entry { return proto.Clone(e).(*Entry) }

// UnmarshalConfChange reads a configuration-change entry's data.
func UnmarshalConfChange(typ EntryType, data []byte) (ConfChangeI, error) {
	if typ == EntryConfChange {
		c := new(ConfChange)
		return c, proto.Unmarshal(data, c)
	}
	c := new(ConfChangeV2)
	return c, proto.Unmarshal(data, c)
}

// Size is the length of m's wire form.
func Size(m *Message) int {
	if fastShape(m) {
		return sizeFast(m)
	}
	return marshal.Size(m)
}

// HasIndex says whether m carries an index field.
func HasIndex(m *Message) bool { return m.Index != nil }
