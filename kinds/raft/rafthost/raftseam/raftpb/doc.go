// Package raftpb is raft's message types as the raft kind uses them:
// go.etcd.io/raft/v3/raftpb's, aliased (v3.7.0), or v3.6.0's behind
// v3.7's getters and constructors (the tag raft36). Package raftseam
// says why.
package raftpb
