package raftseam

import (
	etcd "go.etcd.io/raft/v3"
)

// These alias lists have the shape of raft37.go's, raftpb's and
// scenarios/assertions.go's (a name = pkg.Name a line), on purpose: each
// aliases another package's names, and there is no logic to share.

// The names both releases spell alike, aliased once: etcd here is
// whichever release the build links (v3.7.0, or v3.6.0 under the tag
// raft36), and raft36.go and raft37.go hold only what differs.

type (
	ReadState      = etcd.ReadState
	StateType      = etcd.StateType
	Status         = etcd.Status
	SnapshotStatus = etcd.SnapshotStatus
	ReadOnlyOption = etcd.ReadOnlyOption
	Logger         = etcd.Logger
)

const (
	StateFollower      = etcd.StateFollower
	StateCandidate     = etcd.StateCandidate
	StateLeader        = etcd.StateLeader
	StatePreCandidate  = etcd.StatePreCandidate
	SnapshotFinish     = etcd.SnapshotFinish
	SnapshotFailure    = etcd.SnapshotFailure
	ReadOnlySafe       = etcd.ReadOnlySafe
	ReadOnlyLeaseBased = etcd.ReadOnlyLeaseBased
)

var (
	ErrProposalDropped = etcd.ErrProposalDropped
	IsLocalMsg         = etcd.IsLocalMsg
)
