//go:build raft36

// Package raft36 builds detsim with go.etcd.io/raft/v3 v3.6.0 behind the
// raft kind, the release whose ReadIndex flow etcd-io/etcd#20418 ran on
// (docs/raft.md, "etcd-io/etcd#20418, found again"). It holds no code of
// its own: the build tag raft36 selects kinds/raft/rafthost/raftseam's v3.6
// half, and the go.mod's replace pins the release.
//
//	cd kinds/raft/raft36 && go build -tags raft36 -o detsim36 github.com/detsim/detsim/cmd/detsim
package raft36

import "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"

// The tag and the replace go together: a build without the tag would
// compile v3.7's half of the seam against v3.6 and fail there; this
// fails first, naming what is missing.
var _ = raftseam.Version == "v3.6.0" || panicWrongRaft()

func panicWrongRaft() bool { panic("raft36: built without -tags raft36") }
