package render

import "hash/maphash"

// strTab is a run's string table: each distinct string once, numbered
// in the order first seen (the page's "strs"). It holds every mark's
// label, drawn or not, so in a SWIM run it is most of what the page
// holds; it stores them compactly: the bytes back to back in chunks,
// 12 bytes a string to find them, and an open-addressed index of
// int32s, rather than a []string and a map keyed by string (a header,
// an allocation and a map slot each, about three times the memory).
type strTab struct {
	chunks []string // sealed chunks
	cur    []byte   // the chunk being filled
	refs   []strRef // by number
	slots  []int32  // number+1, 0 empty; len a power of 2
	seed   maphash.Seed
}

type strRef struct{ chunk, off, n uint32 }

const strChunk = 64 << 10

func newStrTab() *strTab { return &strTab{seed: maphash.MakeSeed()} }

func (t *strTab) len() int { return len(t.refs) }

// intern numbers s, adding it if it is new.
func (t *strTab) intern(s string) int32 {
	if i, ok := t.find(s); ok {
		return i
	}
	if 2*(len(t.refs)+1) > len(t.slots) {
		t.grow()
	}
	var r strRef
	switch {
	case len(s) > strChunk/4:
		// A long string is a chunk of its own (strings do not change).
		t.seal()
		t.chunks = append(t.chunks, s)
		r = strRef{uint32(len(t.chunks) - 1), 0, uint32(len(s))}
	default:
		if len(t.cur)+len(s) > strChunk {
			t.seal()
		}
		r = strRef{uint32(len(t.chunks)), uint32(len(t.cur)), uint32(len(s))}
		t.cur = append(t.cur, s...)
	}
	i := int32(len(t.refs))
	t.refs = append(t.refs, r)
	t.place(i, maphash.String(t.seed, s))
	return i
}

// find is s's number, without adding it.
func (t *strTab) find(s string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if t.equal(v-1, s) {
			return v - 1, true
		}
	}
}

func (t *strTab) equal(i int32, s string) bool {
	r := t.refs[i]
	if int(r.n) != len(s) {
		return false
	}
	if int(r.chunk) < len(t.chunks) {
		return t.chunks[r.chunk][r.off:r.off+r.n] == s
	}
	return string(t.cur[r.off:r.off+r.n]) == s
}

// at is string i. Call seal first to have it without a copy.
func (t *strTab) at(i int32) string {
	r := t.refs[i]
	if int(r.chunk) < len(t.chunks) {
		return t.chunks[r.chunk][r.off : r.off+r.n]
	}
	return string(t.cur[r.off : r.off+r.n])
}

// seal closes the chunk being filled.
func (t *strTab) seal() {
	if len(t.cur) > 0 {
		t.chunks = append(t.chunks, string(t.cur))
		t.cur = t.cur[:0]
	}
}

func (t *strTab) place(i int32, h uint64) {
	mask := uint64(len(t.slots) - 1)
	for h &= mask; t.slots[h] != 0; h = (h + 1) & mask {
	}
	t.slots[h] = i + 1
}

func (t *strTab) grow() {
	n := max(1024, 2*len(t.slots))
	t.slots = make([]int32, n)
	for i, r := range t.refs {
		var h uint64
		if int(r.chunk) < len(t.chunks) {
			h = maphash.String(t.seed, t.chunks[r.chunk][r.off:r.off+r.n])
		} else {
			h = maphash.Bytes(t.seed, t.cur[r.off:r.off+r.n])
		}
		t.place(int32(i), h)
	}
}
