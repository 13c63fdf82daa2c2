// Package raftseam is the one place the raft kind (kinds/raft/rafthost) meets
// etcd's raft library, so the kind can be built against two releases of
// it (docs/raft.md, "Two raft versions"). Built normally it is
// go.etcd.io/raft/v3 v3.7.0 itself: every name here is an alias of
// raft's, and nothing is translated. Built with the tag raft36, from the
// module kinds/raft/raft36/ that pins go.etcd.io/raft/v3 v3.6.0, it wraps that
// release unchanged behind the same names: v3.6's raftpb holds values
// where v3.7's holds pointers, so Ready, Step and the storage calls
// convert at the boundary and nothing else moves.
//
// The adapter imports this package as etcd and raftseam/raftpb as pb,
// and calls raft through them only.
package raftseam
