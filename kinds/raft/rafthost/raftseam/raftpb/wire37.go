//go:build !raft36

package raftpb

import "google.golang.org/protobuf/encoding/protowire"

// The messages raft peers exchange are a handful of varints and a list
// of entries; protobuf's table-driven codec spent a seventh of a raft
// run on them, and its decoder made one allocation per field (every
// field of v3.7's Message is a pointer). Here the wire form is read and
// written directly, for exactly the shapes peers send: the varint
// fields, context and entries. Anything else (a snapshot, storage
// responses, an unknown field or enum value, a field with the wrong
// wire type, a repeated singular entry field, malformed bytes) goes to
// protobuf's own codec, so the bytes and the messages are protobuf's
// whatever arrives; TestWire_IsProtobufs and FuzzWire hold the two
// equal (docs/raft.md, "The codec").

// msgBox is a decoded message with the scalars its pointers point to:
// one allocation where protobuf makes one per field.
type msgBox struct {
	m                                               Message
	typ                                             MessageType
	to, from, term, logTerm, index, commit, rejHint uint64
	vote                                            uint64
	reject                                          bool
}

// entBox is an entry and its scalars.
type entBox struct {
	e           Entry
	typ         EntryType
	term, index uint64
}

// Message field numbers (raft.proto).
const (
	fType       = 1
	fTo         = 2
	fFrom       = 3
	fTerm       = 4
	fLogTerm    = 5
	fIndex      = 6
	fEntries    = 7
	fCommit     = 8
	fSnapshot   = 9
	fReject     = 10
	fRejectHint = 11
	fContext    = 12
	fVote       = 13
)

// Entry field numbers.
const (
	eType  = 1
	eTerm  = 2
	eIndex = 3
	eData  = 4
)

// maxEnum bounds the entry types the fast path takes: above it, or not
// a name raftpb knows, protobuf keeps the value as an unknown field
// (the enums are closed), which the slow path then refuses. A message
// type is looked up in typeNames (pb37.go), not the name map, which was
// a tenth of the fast decode; a type it does not hold (none of
// raftpb's) would only take the slow path.
const maxEnum = 1 << 10

// Blocks is where a run of decodes cuts its messages and entries from:
// a few arrays of them, each cut into many, instead of one to three
// allocations a message (docs/raft.md, "The codec"). Nothing cut from a
// block is ever handed out again or written by Blocks, so whatever raft
// keeps of a message — its entries in the unstable log and
// MemoryStorage, the message itself when forwarded or held for a read,
// its field pointers in the responses it makes — stays as decoded for as
// long as it is kept; a block lives as long as anything cut from it. The
// zero Blocks is ready; a nil one allocates each message alone.
type Blocks struct {
	msgs []msgBox
	ents []entBox
	ptrs []*Entry
}

// The sizes of the blocks, each a few KiB: a request larger than a
// quarter of its block gets an array of its own, so a block wastes at
// most a quarter.
const (
	msgBlock = 32
	entBlock = 64
	ptrBlock = 512
)

// cut is n elements of *block, their capacity their length (an append
// to them reallocates rather than reaching the next cut), refilling the
// block with size fresh elements when it has too few left.
func cut[T any](block *[]T, n, size int) []T {
	if n > len(*block) {
		if n > size/4 {
			return make([]T, n)
		}
		*block = make([]T, size)
	}
	c := (*block)[:n:n]
	*block = (*block)[n:]
	return c
}

// msg is a zero message box, cut from its block (blk nil: alone).
func (blk *Blocks) msg() *msgBox {
	if blk == nil {
		return new(msgBox)
	}
	return &cut(&blk.msgs, 1, msgBlock)[0]
}

// entries is n zero entry boxes and n entry pointers (blk nil: alone).
func (blk *Blocks) entries(n int) ([]entBox, []*Entry) {
	if blk == nil {
		return make([]entBox, n), make([]*Entry, n)
	}
	return cut(&blk.ents, n, entBlock), cut(&blk.ptrs, n, ptrBlock)
}

// decodeFast reads b as protobuf would, or says it cannot (ok false).
// The message's byte fields alias b; its boxes are cut from blk.
func decodeFast(b []byte, blk *Blocks) (m *Message, ok bool) {
	// First pass: every field is one the fast path takes, and how many
	// entries there are.
	n := 0
	for p := b; len(p) > 0; {
		num, typ, k := protowire.ConsumeTag(p)
		if k < 0 {
			return nil, false
		}
		p = p[k:]
		switch {
		case typ == protowire.VarintType && num != fEntries && num != fSnapshot && num != fContext && num >= fType && num <= fVote:
			v, k := protowire.ConsumeVarint(p)
			if k < 0 {
				return nil, false
			}
			if num == fType {
				if v >= uint64(len(typeNames)) || typeNames[v] == "" {
					return nil, false
				}
			}
			p = p[k:]
		case typ == protowire.BytesType && (num == fEntries || num == fContext):
			v, k := protowire.ConsumeBytes(p)
			if k < 0 {
				return nil, false
			}
			if num == fEntries {
				if !entryFast(v, nil) {
					return nil, false
				}
				n++
			}
			p = p[k:]
		default:
			return nil, false
		}
	}
	box := blk.msg()
	m = &box.m
	var ents []entBox
	if n > 0 {
		ents, m.Entries = blk.entries(n)
	}
	n = 0
	for p := b; len(p) > 0; {
		num, typ, k := protowire.ConsumeTag(p)
		p = p[k:]
		if typ == protowire.BytesType {
			v, k := protowire.ConsumeBytes(p)
			p = p[k:]
			if num == fEntries {
				entryFast(v, &ents[n])
				m.Entries[n] = &ents[n].e
				n++
			} else {
				m.Context = v[:len(v):len(v)]
			}
			continue
		}
		v, k := protowire.ConsumeVarint(p)
		p = p[k:]
		// One case a field, alike in shape: each boxes its own field
		// of the Message.
		switch num {
		case fType:
			box.typ, m.Type = MessageType(int32(v)), &box.typ
		case fTo:
			box.to, m.To = v, &box.to
		case fFrom:
			box.from, m.From = v, &box.from
		case fTerm:
			box.term, m.Term = v, &box.term
		case fLogTerm:
			box.logTerm, m.LogTerm = v, &box.logTerm
		case fIndex:
			box.index, m.Index = v, &box.index
		case fCommit:
			box.commit, m.Commit = v, &box.commit
		case fReject:
			box.reject, m.Reject = protowire.DecodeBool(v), &box.reject
		case fRejectHint:
			box.rejHint, m.RejectHint = v, &box.rejHint
		case fVote:
			box.vote, m.Vote = v, &box.vote
		}
	}
	return m, true
}

// entryFast checks that b is an entry the fast path takes, and with a
// box fills it. Each field at most once: protobuf merges a repeated
// one, and the slow path does that.
func entryFast(b []byte, box *entBox) bool {
	var seen uint8
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 || num < eType || num > eData || seen&(1<<num) != 0 {
			return false
		}
		seen |= 1 << num
		b = b[k:]
		if num == eData {
			if typ != protowire.BytesType {
				return false
			}
			v, k := protowire.ConsumeBytes(b)
			if k < 0 {
				return false
			}
			if box != nil {
				box.e.Data = v[:len(v):len(v)]
			}
			b = b[k:]
			continue
		}
		if typ != protowire.VarintType {
			return false
		}
		v, k := protowire.ConsumeVarint(b)
		if k < 0 {
			return false
		}
		b = b[k:]
		if num == eType {
			if _, known := EntryType_name[int32(v)]; v >= maxEnum || !known {
				return false
			}
		}
		if box == nil {
			continue
		}
		switch num {
		case eType:
			box.typ, box.e.Type = EntryType(int32(v)), &box.typ
		case eTerm:
			box.term, box.e.Term = v, &box.term
		case eIndex:
			box.index, box.e.Index = v, &box.index
		}
	}
	return true
}

// fastShape says whether m is one the fast encoder writes: no snapshot,
// no storage responses, no unknown fields, no nil entry.
func fastShape(m *Message) bool {
	if m.Snapshot != nil || m.Responses != nil || len(m.ProtoReflect().GetUnknown()) > 0 {
		return false
	}
	for _, e := range m.Entries {
		if e == nil || len(e.ProtoReflect().GetUnknown()) > 0 {
			return false
		}
	}
	return true
}

func sizeVarintField(num protowire.Number, v *uint64) int {
	if v == nil {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeVarint(*v)
}

func sizeEntry(e *Entry) int {
	n := sizeVarintField(eTerm, e.Term) + sizeVarintField(eIndex, e.Index)
	if e.Type != nil {
		n += 1 + protowire.SizeVarint(uint64(int64(*e.Type)))
	}
	if e.Data != nil {
		n += 1 + protowire.SizeBytes(len(e.Data))
	}
	return n
}

// sizeFast is the wire length of a message of the fast shape.
func sizeFast(m *Message) int {
	n := sizeVarintField(fTo, m.To) + sizeVarintField(fFrom, m.From) + sizeVarintField(fTerm, m.Term) +
		sizeVarintField(fLogTerm, m.LogTerm) + sizeVarintField(fIndex, m.Index) + sizeVarintField(fCommit, m.Commit) +
		sizeVarintField(fRejectHint, m.RejectHint) + sizeVarintField(fVote, m.Vote)
	if m.Type != nil {
		n += 1 + protowire.SizeVarint(uint64(int64(*m.Type)))
	}
	for _, e := range m.Entries {
		n += 1 + protowire.SizeBytes(sizeEntry(e))
	}
	if m.Reject != nil {
		n += 2
	}
	if m.Context != nil {
		n += 1 + protowire.SizeBytes(len(m.Context))
	}
	return n
}

func appendVarintField(b []byte, num protowire.Number, v *uint64) []byte {
	if v == nil {
		return b
	}
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), *v)
}

// appendFast writes a message of the fast shape in protobuf's order:
// by field number, as its deterministic marshalling does.
func appendFast(b []byte, m *Message) []byte {
	if m.Type != nil {
		b = protowire.AppendVarint(append(b, fType<<3), uint64(int64(*m.Type)))
	}
	b = appendVarintField(b, fTo, m.To)
	b = appendVarintField(b, fFrom, m.From)
	b = appendVarintField(b, fTerm, m.Term)
	b = appendVarintField(b, fLogTerm, m.LogTerm)
	b = appendVarintField(b, fIndex, m.Index)
	for _, e := range m.Entries {
		b = protowire.AppendVarint(append(b, fEntries<<3|2), uint64(sizeEntry(e)))
		if e.Type != nil {
			b = protowire.AppendVarint(append(b, eType<<3), uint64(int64(*e.Type)))
		}
		b = appendVarintField(b, eTerm, e.Term)
		b = appendVarintField(b, eIndex, e.Index)
		if e.Data != nil {
			b = protowire.AppendBytes(append(b, eData<<3|2), e.Data)
		}
	}
	b = appendVarintField(b, fCommit, m.Commit)
	if m.Reject != nil {
		b = append(b, fReject<<3, byte(protowire.EncodeBool(*m.Reject)))
	}
	b = appendVarintField(b, fRejectHint, m.RejectHint)
	if m.Context != nil {
		b = protowire.AppendBytes(append(b, fContext<<3|2), m.Context)
	}
	return appendVarintField(b, fVote, m.Vote)
}
