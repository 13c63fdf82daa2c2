//go:build !raft36

package raftseam

import (
	etcd "go.etcd.io/raft/v3"
)

// Version is the release of go.etcd.io/raft/v3 this build links.
const Version = "v3.7.0"

type (
	RawNode        = etcd.RawNode
	Config         = etcd.Config
	Ready          = etcd.Ready
	ReadState      = etcd.ReadState
	StateType      = etcd.StateType
	BasicStatus    = etcd.BasicStatus
	Status         = etcd.Status
	MemoryStorage  = etcd.MemoryStorage
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
	NewRawNode         = etcd.NewRawNode
	NewMemoryStorage   = etcd.NewMemoryStorage
	IsEmptySnap        = etcd.IsEmptySnap
	IsEmptyHardState   = etcd.IsEmptyHardState
	IsLocalMsg         = etcd.IsLocalMsg
)
