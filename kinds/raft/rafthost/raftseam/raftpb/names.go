package raftpb

import (
	pb "go.etcd.io/raft/v3/raftpb"
)

// These alias lists have the shape of raftseam's seam.go (a name =
// pkg.Name a line), on purpose: they name raftpb's values, not raft's.

// The names both releases spell alike, aliased once: pb here is
// whichever release the build links (v3.7.0, or v3.6.0 under the tag
// raft36); pb36.go and pb37.go hold the message types, which differ.

type (
	MessageType  = pb.MessageType
	EntryType    = pb.EntryType
	ConfChange   = pb.ConfChange
	ConfChangeV2 = pb.ConfChangeV2
	ConfChangeI  = pb.ConfChangeI
)

const (
	MsgProp         = pb.MsgProp
	MsgVote         = pb.MsgVote
	MsgVoteResp     = pb.MsgVoteResp
	MsgPreVote      = pb.MsgPreVote
	MsgPreVoteResp  = pb.MsgPreVoteResp
	MsgSnap         = pb.MsgSnap
	EntryNormal     = pb.EntryNormal
	EntryConfChange = pb.EntryConfChange
)

var (
	MessageType_name = pb.MessageType_name //nolint:revive // raftpb's name
	EntryType_name   = pb.EntryType_name   //nolint:revive // raftpb's name
)
