//go:build raft36

package raftseam

import (
	etcd "go.etcd.io/raft/v3"
	pb36 "go.etcd.io/raft/v3/raftpb"

	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// Version is the release of go.etcd.io/raft/v3 this build links.
const Version = "v3.6.0"

// Config is the part of etcd.Config the adapter sets.
type Config struct {
	ID                        uint64
	ElectionTick              int
	HeartbeatTick             int
	Storage                   *MemoryStorage
	Applied                   uint64
	MaxSizePerMsg             uint64
	MaxCommittedSizePerReady  uint64
	MaxUncommittedEntriesSize uint64
	MaxInflightMsgs           int
	CheckQuorum               bool
	PreVote                   bool
	ReadOnlyOption            ReadOnlyOption
	Logger                    Logger
}

// Ready is v3.6's Ready with v3.7's pointers. Entries and messages are
// copied out of raft's slices (their data is shared, as in v3.7).
type Ready struct {
	*etcd.SoftState
	*pb.HardState
	ReadStates       []ReadState
	Entries          []*pb.Entry
	Snapshot         *pb.Snapshot
	CommittedEntries []*pb.Entry
	Messages         []*pb.Message
	MustSync         bool
}

// BasicStatus is v3.6's with v3.7's pointer to the HardState.
type BasicStatus struct {
	ID uint64
	*pb.HardState
	etcd.SoftState
	Applied        uint64
	LeadTransferee uint64
}

// RawNode is v3.6's RawNode behind v3.7's signatures.
//
// v3.6 refuses to campaign while a committed configuration change is
// unapplied, which a bootstrapped member's are until its first Ready is
// handled; the adapter's campaign_at_ns = 0 comes before that. So a
// Campaign while the bootstrap entries (up to boot) are unapplied waits
// for the Advance that applies them.
type RawNode struct {
	rn       *etcd.RawNode
	boot     uint64 // the last bootstrap entry, while unapplied
	campaign bool   // a Campaign waiting for it
}

func NewRawNode(c *Config) (*RawNode, error) {
	rn, err := etcd.NewRawNode(&etcd.Config{
		ID:                        c.ID,
		ElectionTick:              c.ElectionTick,
		HeartbeatTick:             c.HeartbeatTick,
		Storage:                   c.Storage.ms,
		Applied:                   c.Applied,
		MaxSizePerMsg:             c.MaxSizePerMsg,
		MaxCommittedSizePerReady:  c.MaxCommittedSizePerReady,
		MaxUncommittedEntriesSize: c.MaxUncommittedEntriesSize,
		MaxInflightMsgs:           c.MaxInflightMsgs,
		CheckQuorum:               c.CheckQuorum,
		PreVote:                   c.PreVote,
		ReadOnlyOption:            c.ReadOnlyOption,
		Logger:                    c.Logger,
	})
	if err != nil {
		return nil, err
	}
	if b := c.Storage.boot; b != nil {
		if last, _ := c.Storage.ms.LastIndex(); last == 0 {
			peers := make([]etcd.Peer, len(b.Voters))
			for i, id := range b.Voters {
				peers[i] = etcd.Peer{ID: id}
			}
			if err := rn.Bootstrap(peers); err != nil {
				return nil, err
			}
			return &RawNode{rn: rn, boot: uint64(len(peers))}, nil
		}
	}
	return &RawNode{rn: rn}, nil
}

func (n *RawNode) Tick() { n.rn.Tick() }
func (n *RawNode) Campaign() error {
	if n.boot > 0 {
		n.campaign = true
		return nil
	}
	return n.rn.Campaign()
}
func (n *RawNode) Propose(data []byte) error { return n.rn.Propose(data) }
func (n *RawNode) Step(m *pb.Message) error  { return n.rn.Step(pb36.Message(*m)) }
func (n *RawNode) ReadIndex(rctx []byte)     { n.rn.ReadIndex(rctx) }
func (n *RawNode) HasReady() bool            { return n.rn.HasReady() }
func (n *RawNode) Advance(Ready) {
	n.rn.Advance(etcd.Ready{})
	if n.boot > 0 && n.rn.BasicStatus().Applied >= n.boot {
		n.boot = 0
		if n.campaign {
			n.campaign = false
			_ = n.rn.Campaign()
		}
	}
}
func (n *RawNode) ReportUnreachable(id uint64) {
	n.rn.ReportUnreachable(id)
}
func (n *RawNode) ReportSnapshot(id uint64, s SnapshotStatus) { n.rn.ReportSnapshot(id, s) }
func (n *RawNode) ApplyConfChange(cc pb.ConfChangeI) *pb.ConfState {
	return (*pb.ConfState)(n.rn.ApplyConfChange(cc))
}
func (n *RawNode) Status() Status { return n.rn.Status() }

func (n *RawNode) BasicStatus() BasicStatus {
	st := n.rn.BasicStatus()
	hs := pb.HardState(st.HardState)
	return BasicStatus{ID: st.ID, HardState: &hs, SoftState: st.SoftState, Applied: st.Applied, LeadTransferee: st.LeadTransferee}
}

func (n *RawNode) Ready() Ready {
	rd := n.rn.Ready()
	out := Ready{SoftState: rd.SoftState, ReadStates: rd.ReadStates, MustSync: rd.MustSync,
		Entries: copies(rd.Entries), CommittedEntries: copies(rd.CommittedEntries)}
	if !etcd.IsEmptyHardState(rd.HardState) {
		hs := pb.HardState(rd.HardState)
		out.HardState = &hs
	}
	if !etcd.IsEmptySnap(rd.Snapshot) {
		s := pb.Snapshot(rd.Snapshot)
		out.Snapshot = &s
	}
	if rd.Messages != nil {
		out.Messages = make([]*pb.Message, len(rd.Messages))
		for i := range rd.Messages {
			m := pb.Message(rd.Messages[i])
			out.Messages[i] = &m
		}
	}
	return out
}

func copies(es []pb36.Entry) []*pb.Entry {
	return pb.Entries(append([]pb36.Entry(nil), es...))
}

func IsEmptySnap(s *pb.Snapshot) bool { return s == nil || etcd.IsEmptySnap(pb36.Snapshot(*s)) }
func IsEmptyHardState(h *pb.HardState) bool {
	return h == nil || etcd.IsEmptyHardState(pb36.HardState(*h))
}

// MemoryStorage is v3.6's MemoryStorage behind v3.7's signatures.
//
// v3.7 takes a new cluster's members as a snapshot at index 0; v3.6
// refuses one (ErrSnapOutOfDate: its empty storage already holds one at
// 0), so the storage keeps that snapshot's ConfState as boot and
// NewRawNode bootstraps from it as etcd v3.6's server does
// (RawNode.Bootstrap: one ConfChangeAddNode entry a member at term 1,
// committed). The members' logs then begin with those entries.
type MemoryStorage struct {
	ms   *etcd.MemoryStorage
	boot *pb36.ConfState
}

func NewMemoryStorage() *MemoryStorage { return &MemoryStorage{ms: etcd.NewMemoryStorage()} }

func (s *MemoryStorage) ApplySnapshot(snap *pb.Snapshot) error {
	if snap.Metadata.Index == 0 {
		if last, _ := s.ms.LastIndex(); last == 0 {
			cs := snap.Metadata.ConfState
			s.boot = &cs
			return nil
		}
	}
	return s.ms.ApplySnapshot(pb36.Snapshot(*snap))
}
func (s *MemoryStorage) Append(ents []*pb.Entry) error { return s.ms.Append(pb.Values(ents)) }
func (s *MemoryStorage) SetHardState(h *pb.HardState) error {
	return s.ms.SetHardState(pb36.HardState(*h))
}
func (s *MemoryStorage) Compact(i uint64) error        { return s.ms.Compact(i) }
func (s *MemoryStorage) Term(i uint64) (uint64, error) { return s.ms.Term(i) }
func (s *MemoryStorage) LastIndex() (uint64, error)    { return s.ms.LastIndex() }
func (s *MemoryStorage) FirstIndex() (uint64, error)   { return s.ms.FirstIndex() }
func (s *MemoryStorage) Entries(lo, hi, max uint64) ([]*pb.Entry, error) {
	es, err := s.ms.Entries(lo, hi, max)
	return pb.Entries(es), err
}
func (s *MemoryStorage) Snapshot() (*pb.Snapshot, error) {
	snap, err := s.ms.Snapshot()
	out := pb.Snapshot(snap)
	return &out, err
}
func (s *MemoryStorage) InitialState() (*pb.HardState, *pb.ConfState, error) {
	hs, cs, err := s.ms.InitialState()
	h, c := pb.HardState(hs), pb.ConfState(cs)
	return &h, &c, err
}
func (s *MemoryStorage) CreateSnapshot(i uint64, cs *pb.ConfState, data []byte) (*pb.Snapshot, error) {
	snap, err := s.ms.CreateSnapshot(i, (*pb36.ConfState)(cs), data)
	out := pb.Snapshot(snap)
	return &out, err
}
