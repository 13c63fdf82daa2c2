package swim

import (
	"bytes"
	"encoding/binary"
)

// tails remembers, for the last few senders a Decoder heard a large
// message from, that message's update section: its bytes and the updates
// they decoded to. A legacy queue piggybacks every update ever made, in
// an order a take keeps (new items in front, the rest as they were), so a
// sender's next message is nearly always its last one with a few updates
// in front, or the very same: in gossip_flap_legacy 98 % of messages, 93 %
// of the update bytes (docs/BENCHMARKS.md, "The legacy decoder reads only
// what is new"). When a message's update section ends with the bytes
// remembered for its sender, only the updates in front of them are
// decoded, and the rest are the remembered ones; one comparison of bytes
// proves them equal, so the message is the one Decode returns, never a
// guess.
//
// Both the bytes and the updates are kept right-aligned in their arrays,
// so the updates in front are written before the remembered ones without
// moving them.
type tails struct {
	e     [tailSenders]tail
	clock uint64
}

type tail struct {
	// from is the sender; "" for an entry not used yet.
	from string
	// used is the tails clock when the entry was last used (a new sender
	// evicts the entry used least recently).
	used uint64
	// raw[rawAt:] is the update section (after its count) of from's last
	// large message, and ups[upsAt:] the updates it decoded to.
	raw   []byte
	rawAt int
	ups   []Update
	upsAt int
}

const (
	// tailSenders is how many senders a Decoder remembers: a sweep's
	// scenarios run three to five peers, so a host hears at most four.
	tailSenders = 4
	// minTailBytes is the smallest update section remembered: more than
	// a bounded message (MaxMessageBytes, 1 400 by default) carries in
	// all, so a bounded run, whose messages change from one to the next,
	// neither keeps nor compares any (a thousand-peer run's Decoders stay
	// as small as they were); the one bounded message that may carry
	// more, a join response, is never remembered (decode). An entry
	// holds at most MaxDatagramBytes of bytes and maxKeptUpdates updates.
	minTailBytes = 2048
)

// entry returns from's entry and whether it was remembered; a sender not
// remembered gets the entry used least recently, emptied.
func (ts *tails) entry(from string) (*tail, bool) {
	ts.clock++
	lru := &ts.e[0]
	for i := range ts.e {
		t := &ts.e[i]
		if t.from == from {
			t.used = ts.clock
			return t, true
		}
		if t.used < lru.used {
			lru = t
		}
	}
	lru.from, lru.used = from, ts.clock
	lru.rawAt, lru.upsAt = len(lru.raw), len(lru.ups)
	return lru, false
}

// tailUpdates is updates("update", reuse) for a message from from,
// through ts: a large update section is decoded only in front of the
// bytes remembered for from, and remembered in their place.
func (r *reader) tailUpdates(ts *tails, from string, reuse *[]Update) []Update {
	rest := len(r.b) - r.off - 2
	if *r.err != nil || rest < minTailBytes {
		return r.updates("update", reuse)
	}
	count := int(binary.BigEndian.Uint16(r.b[r.off:]))
	if count == 0 || count > rest/minUpdateSize || count > maxKeptUpdates {
		// Nothing, an error or an array not kept: as updates says.
		return r.updates("update", reuse)
	}
	r.off += 2
	start := r.off
	t, ok := ts.entry(from)
	if old := t.raw[t.rawAt:]; ok && len(old) <= rest && count >= len(t.ups)-t.upsAt &&
		bytes.Equal(r.b[len(r.b)-len(old):], old) {
		n := len(t.ups) - t.upsAt
		front, boundary := count-n, len(r.b)-len(old)
		if t.upsAt < front {
			t.ups, t.upsAt = regrow(t.ups, t.upsAt, count, maxKeptUpdates)
		}
		// The updates in front are the first ones a whole decode reads,
		// from the same bytes, so an error among them is its error too.
		dst := t.ups[t.upsAt-front : t.upsAt]
		for i := range dst {
			if !r.update(&dst[i], "update") {
				return nil
			}
		}
		if r.off == boundary {
			t.upsAt -= front
			if t.rawAt < boundary-start {
				t.raw, t.rawAt = regrow(t.raw, t.rawAt, rest, MaxDatagramBytes)
			}
			t.rawAt -= copy(t.raw[t.rawAt-(boundary-start):], r.b[start:boundary])
			r.off = len(r.b)
			return t.ups[t.upsAt:]
		}
		// The bytes in front were not front updates that end where the
		// remembered ones begin: decode it all.
		r.off = start
	}
	t.rawAt, t.upsAt = len(t.raw), len(t.ups)
	if len(t.ups) < count {
		t.ups, t.upsAt = regrow(t.ups, t.upsAt, count, maxKeptUpdates)
	}
	us := t.ups[len(t.ups)-count:]
	for i := range us {
		if !r.update(&us[i], "update") {
			return nil
		}
	}
	if r.off == len(r.b) {
		t.upsAt = len(t.ups) - count
		if len(t.raw) < rest {
			t.raw, t.rawAt = regrow(t.raw, t.rawAt, rest, MaxDatagramBytes)
		}
		t.rawAt = len(t.raw) - copy(t.raw[len(t.raw)-rest:], r.b[start:])
	}
	return us
}

// regrow returns a larger array for s[at:], which it keeps right-aligned,
// with room for need elements in all: twice s, at least need, at most
// limit (need is not above it), and where the kept elements start.
func regrow[E any](s []E, at, need, limit int) ([]E, int) {
	n := min(max(need, 2*len(s)), limit)
	g := make([]E, n)
	kept := copy(g[n-(len(s)-at):], s[at:])
	return g, n - kept
}
