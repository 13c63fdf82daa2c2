//go:build !raft36

package raftseam

import (
	etcd "go.etcd.io/raft/v3"
)

// Version is the release of go.etcd.io/raft/v3 this build links.
const Version = "v3.7.0"

// An alias list like seam.go's, apart from it on purpose: raft36.go
// defines these names instead of aliasing them.

// Not in seam.go: v3.6's build wraps these (raft36.go), so each release
// names them on its own; seam.go has the names both spell alike.
type (
	RawNode       = etcd.RawNode
	Config        = etcd.Config
	Ready         = etcd.Ready
	BasicStatus   = etcd.BasicStatus
	MemoryStorage = etcd.MemoryStorage
)

var (
	NewRawNode       = etcd.NewRawNode
	NewMemoryStorage = etcd.NewMemoryStorage
	IsEmptySnap      = etcd.IsEmptySnap
	IsEmptyHardState = etcd.IsEmptyHardState
)
