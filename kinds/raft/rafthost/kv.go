package rafthost

import (
	"bytes"

	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// A put is written into an entry as req NUL key NUL value: the request's
// name ("<peer>#<n>"), which the apply records carry so a proposal can
// be followed to its commit, then the key and the value.

func encodeCommand(req, key, value string) []byte {
	b := make([]byte, 0, len(req)+len(key)+len(value)+2)
	b = append(b, req...)
	b = append(b, 0)
	b = append(b, key...)
	b = append(b, 0)
	return append(b, value...)
}

func decodeCommand(b []byte) (req, key, value string, ok bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", "", "", false
	}
	j := bytes.IndexByte(b[i+1:], 0)
	if j < 0 {
		return "", "", "", false
	}
	// One string, the three cut from it: a put's three strings were
	// three allocations, for every put every member applies.
	s := string(b)
	return s[:i], s[i+1 : i+1+j], s[i+2+j:], true
}

// confChange reads a configuration-change entry.
func confChange(e *pb.Entry) (pb.ConfChangeI, error) {
	return pb.UnmarshalConfChange(e.GetType(), e.GetData())
}
