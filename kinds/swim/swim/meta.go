package swim

import "bytes"

// Member metadata: opaque bytes carried by every alive update (memberlist's
// Node.Meta). In production it is the iroh NodeAddr plus role info; here a
// node's own metadata is derived from its id, so that runs are
// reproducible and the wire carries realistic sizes.

// DerivedMeta returns the metadata of the member id when its MetaBytes is
// size: id and a '/' repeated, truncated to size bytes ("a/a/a" for "a"
// and 5), or nil for size ≤ 0. It is deterministic and never random.
func DerivedMeta(id string, size int) []byte {
	if size <= 0 {
		return nil
	}
	unit := id + "/"
	out := make([]byte, 0, size)
	for len(out) < size {
		out = append(out, unit[:min(len(unit), size-len(out))]...)
	}
	return out
}

// metaSource says where a member's stored metadata came from.
type metaSource uint8

const (
	// metaAssumed: never heard, so assumed to be what the member derives
	// with this node's own MetaBytes (a scenario normally gives every peer
	// the same kind_config). Any alive about the member at its stored
	// incarnation replaces it. The zero value: every member starts so.
	metaAssumed metaSource = iota
	// metaHeard: from an alive about the member (or the node's own).
	metaHeard
)

// metaOf returns member m's stored metadata. Assumed metadata is computed
// on first use, because a 1000-member cluster would otherwise hold a
// million copies nobody reads.
func (n *Node) metaOf(idx int32) []byte {
	m := &n.members[idx]
	if n.metaSource(m) == metaAssumed && n.storedMeta(m) == nil {
		if d := DerivedMeta(n.id(idx), n.cfg.MetaBytes); d != nil {
			n.ext(m).meta = d
		}
	}
	return n.storedMeta(m)
}

// metaLen is len(n.metaOf(m)) without computing it.
func (n *Node) metaLen(m *member) int {
	if n.metaSource(m) == metaAssumed {
		return max(0, n.cfg.MetaBytes)
	}
	return len(n.storedMeta(m))
}

// storeMeta replaces member m's metadata with a copy of meta (from an
// alive about it) and returns the copy, nil for empty. The copy keeps the
// view independent of the caller's message.
func (n *Node) storeMeta(m *member, meta []byte) []byte {
	x := n.ext(m)
	x.metaSrc = metaHeard
	x.meta = nil
	if len(meta) > 0 {
		x.meta = bytes.Clone(meta)
	}
	return x.meta
}

// Meta returns a copy of the node's stored metadata for member id (its own
// for itself, assumed for a member it has not heard it from); ok is false
// for a member it has never heard of.
func (n *Node) Meta(id string) (meta []byte, ok bool) {
	idx, ok := n.lookup(id)
	if !ok {
		return nil, false
	}
	return bytes.Clone(n.metaOf(idx)), true
}
