// Package rng is the randomness tree of spec §7.2: every random draw in a run
// descends from the scenario seed through siphash-derived substreams.
//
// A substream is named by a tuple — ("link", from, to), ("host", id, label),
// ("mutation", i) — and its key is siphash-128 of the seed and the
// length-prefixed tuple under a fixed key. Draw n of a substream is
// siphash-64 of n under the substream key, so a stream's whole state is one
// counter: checkpoints copy it, and editing one link's policy or adding a
// peer never perturbs any other substream's draws.
package rng

import (
	"encoding/binary"
	"strconv"

	"github.com/dchest/siphash"
)

// The fixed siphash key that derives substream keys from (seed, tuple).
// NB: changing either constant changes every run ever recorded.
const (
	rootKey0 = 0x64657473696d2d31 // "detsim-1"
	rootKey1 = 0x72616e646f6d2d31 // "random-1"
)

// Root is the top of the randomness tree for one seed.
type Root struct{ seed uint64 }

// New returns the root of the tree for seed.
func New(seed uint64) Root { return Root{seed: seed} }

// Seed reports the seed the tree was built from.
func (r Root) Seed() uint64 { return r.seed }

// Link is the per-edge substream ("link", from, to) the network draws from.
func (r Root) Link(from, to string) *Stream { return r.derive("link", from, to) }

// Host is the per-host substream ("host", id, label). Callers name it
// through Tick, Life or Property, never by spelling a label: the engine,
// live runs and swimd must draw the same values for the same peer, and
// one spelling is what keeps them from drifting apart.
func (r Root) Host(id, label string) *Stream { return r.derive("host", id, label) }

// Tick is the substream of host id's first-tick offsets,
// ("host", id, "tick").
func (r Root) Tick(id string) *Stream { return r.Host(id, "tick") }

// Life is the substream of the host kind's draws in host id's life-th
// fresh life (0 the first): ("host", id, "kind"), then
// ("host", id, "kind/life=N"), so a restarted host never replays its
// previous life's draws (DESIGN §4).
func (r Root) Life(id string, life int) *Stream {
	if life == 0 {
		return r.Host(id, "kind")
	}
	return r.Host(id, "kind/life="+strconv.Itoa(life))
}

// Property is the substream a property draws its scenario's value
// labelled label from, ("host", "property", label): scenario i of a
// property is a function of the seed alone.
func (r Root) Property(label string) *Stream { return r.Host("property", label) }

// Mutation is the per-mutation substream ("mutation", i).
func (r Root) Mutation(i int) *Stream {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(i))
	return r.derive("mutation", string(b[:]))
}

// derive hashes seed ‖ len(part) ‖ part ‖ … so that no two distinct tuples
// share a key ("ab","c" and "a","bc" differ by their length prefixes).
func (r Root) derive(parts ...string) *Stream {
	n := 8
	for _, p := range parts {
		n += 4 + len(p)
	}
	// Substreams are derived per edge: a million of them for a
	// thousand-peer mesh, so short tuples use a buffer on the stack.
	var stack [192]byte
	buf := stack[:0]
	if n > len(stack) {
		buf = make([]byte, 0, n)
	}
	buf = binary.LittleEndian.AppendUint64(buf, r.seed)
	for _, p := range parts {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(p)))
		buf = append(buf, p...)
	}
	k0, k1 := siphash.Hash128(rootKey0, rootKey1, buf)
	return &Stream{k0: k0, k1: k1}
}

// Stream is a counter-based random stream: draw n is siphash(n) under the
// stream's key. The zero value is not usable; get one from a Root.
type Stream struct {
	k0, k1 uint64
	n      uint64
}

// Uint64 returns the next draw.
func (s *Stream) Uint64() uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], s.n)
	s.n++
	return siphash.Hash(s.k0, s.k1, b[:])
}

// Uint32 returns the low 32 bits of the next draw.
func (s *Stream) Uint32() uint32 { return uint32(s.Uint64()) }

// Below returns a draw in [0, n) for n > 0 by rejection, so it has no
// modulo bias. It panics on n <= 0: a caller bug, not an input error.
func (s *Stream) Below(n uint64) uint64 {
	if n == 0 {
		panic("rng: Below(0)")
	}
	limit := -n % n // 2^64 mod n: draws below it would bias the result
	for {
		v := s.Uint64()
		if v >= limit {
			return v % n
		}
	}
}

// Chance reports whether an event of probability ppm parts-per-million
// happens, using one 32-bit draw as §5.4 step 3 specifies.
func (s *Stream) Chance(ppm int64) bool {
	if ppm <= 0 {
		s.n++ // keep the draw count independent of the outcome
		return false
	}
	return int64(s.Uint32()%1_000_000) < ppm
}

// Skip consumes one draw without computing it. A caller that does not
// need a draw's value skips it rather than leaving it undrawn, so the
// number of draws, and so every later value, never depends on a branch.
func (s *Stream) Skip() { s.n++ }

// Position is how many draws the stream has made; with the key it is the
// stream's whole state.
func (s *Stream) Position() uint64 { return s.n }

// Fork returns the child substream of s named label: its key is
// siphash-128 of the length-prefixed label under s's key, so it does not
// depend on how many draws s has made and draws nothing from s. A host
// kind that needs a stream of its own beside its life's (etcd raft's
// election timeouts) forks it from the stream New was given, and so
// inherits its per-life separation.
func (s *Stream) Fork(label string) *Stream {
	buf := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(label)), uint32(len(label)))
	buf = append(buf, label...)
	k0, k1 := siphash.Hash128(s.k0, s.k1, buf)
	return &Stream{k0: k0, k1: k1}
}

// Clone returns an independent copy at the same position.
func (s *Stream) Clone() *Stream { c := *s; return &c }
