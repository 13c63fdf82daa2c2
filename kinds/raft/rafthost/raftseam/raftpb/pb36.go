//go:build raft36

package raftpb

import (
	pb "go.etcd.io/raft/v3/raftpb"
)

// v3.6.0's raftpb (gogo protobuf) holds values where v3.7's holds
// pointers and has no getters: each type here is v3.6's own, renamed
// so it can carry v3.7's getters. A conversion between the two is a
// change of type, not a copy, except for slices of entries.

type (
	Message          pb.Message
	Entry            pb.Entry
	HardState        pb.HardState
	Snapshot         pb.Snapshot
	SnapshotMetadata pb.SnapshotMetadata
	ConfState        pb.ConfState
)

func (m *Message) GetType() MessageType {
	if m == nil {
		return 0
	}
	return m.Type
}
func (m *Message) GetTo() uint64      { return m.To }
func (m *Message) GetFrom() uint64    { return m.From }
func (m *Message) GetTerm() uint64    { return m.Term }
func (m *Message) GetLogTerm() uint64 { return m.LogTerm }
func (m *Message) GetIndex() uint64   { return m.Index }
func (m *Message) GetCommit() uint64  { return m.Commit }
func (m *Message) GetReject() bool    { return m.Reject }
func (m *Message) GetContext() []byte { return m.Context }
func (m *Message) GetEntries() []*Entry {
	return Entries(m.Entries)
}

func (e *Entry) GetIndex() uint64    { return e.Index }
func (e *Entry) GetTerm() uint64     { return e.Term }
func (e *Entry) GetType() EntryType  { return e.Type }
func (e *Entry) GetData() []byte     { return e.Data }
func (h *HardState) GetTerm() uint64 { return h.Term }
func (h *HardState) GetVote() uint64 { return h.Vote }
func (h *HardState) GetCommit() uint64 {
	return h.Commit
}
func (s *Snapshot) GetData() []byte { return s.Data }
func (s *Snapshot) GetMetadata() *SnapshotMetadata {
	return (*SnapshotMetadata)(&s.Metadata)
}
func (m *SnapshotMetadata) GetIndex() uint64 { return m.Index }
func (m *SnapshotMetadata) GetTerm() uint64  { return m.Term }
func (m *SnapshotMetadata) GetConfState() *ConfState {
	return (*ConfState)(&m.ConfState)
}
func (c *ConfState) GetVoters() []uint64 { return c.Voters }

// Entries is v3.6's entries as v3.7's pointers, sharing their storage.
func Entries(es []pb.Entry) []*Entry {
	if es == nil {
		return nil
	}
	out := make([]*Entry, len(es))
	for i := range es {
		out[i] = (*Entry)(&es[i])
	}
	return out
}

// Values is v3.7-shaped entries as v3.6's values.
func Values(es []*Entry) []pb.Entry {
	if es == nil {
		return nil
	}
	out := make([]pb.Entry, len(es))
	for i, e := range es {
		out[i] = pb.Entry(*e)
	}
	return out
}

// AppendMarshal appends m's wire form, v3.6's gogo marshalling: what a
// v3.6 member sends (every non-repeated field written, zero or not).
func AppendMarshal(b []byte, m *Message) ([]byte, error) {
	w, err := (*pb.Message)(m).Marshal()
	return append(b, w...), err
}

// Unmarshal reads one message. gogo's generated code skips unknown
// fields without a trace and a type of 0 is MsgHup, so neither can be
// refused here as v3.7's build refuses them; MsgHup is local and the
// codec refuses it.
func Unmarshal(b []byte) (*Message, error) {
	m := new(pb.Message)
	if err := m.Unmarshal(b); err != nil {
		return nil, err
	}
	return (*Message)(m), nil
}

// Blocks is v3.7's decode blocks in name only: gogo's Unmarshal
// allocates a message and its entries as it reads.
type Blocks struct{}

// Unmarshal is the package's Unmarshal.
func (*Blocks) Unmarshal(b []byte) (*Message, error) { return Unmarshal(b) }

// TypeName is t.String(), which gogo's enums make without reflection.
func TypeName(t MessageType) string { return t.String() }

// NewProp is a MsgProp carrying one entry of data.
func NewProp(from, to uint64, data []byte) *Message {
	return &Message{Type: MsgProp, From: from, To: to, Entries: []pb.Entry{{Data: data}}}
}

// NewVoteResp is a granted vote (or pre-vote) response.
func NewVoteResp(typ MessageType, from, to, term uint64) *Message {
	return &Message{Type: typ, To: to, From: from, Term: term}
}

// NewSnapshot is an empty snapshot of conf at index and term (nil: 0).
func NewSnapshot(index, term *uint64, conf *ConfState) *Snapshot {
	s := &Snapshot{Metadata: pb.SnapshotMetadata{ConfState: pb.ConfState(*conf)}}
	if index != nil {
		s.Metadata.Index = *index
	}
	if term != nil {
		s.Metadata.Term = *term
	}
	return s
}

// CloneEntry is a deep copy of e.
func CloneEntry(e *Entry) *Entry {
	c := *e
	c.Data = append([]byte(nil), e.Data...)
	return &c
}

// UnmarshalConfChange reads a configuration-change entry's data.
func UnmarshalConfChange(typ EntryType, data []byte) (ConfChangeI, error) {
	if typ == EntryConfChange {
		c := new(ConfChange)
		return c, c.Unmarshal(data)
	}
	c := new(ConfChangeV2)
	return c, c.Unmarshal(data)
}

// Size is the length of m's wire form.
func Size(m *Message) int { return (*pb.Message)(m).Size() }

// HasIndex says whether m carries an index field: v3.6 always writes
// one, so a nonzero one.
func HasIndex(m *Message) bool { return m.Index != 0 }
