package swim

import "math"

// broadcast is one queued update with its transmit count.
type broadcast struct {
	u         Update
	size      int
	transmits int
	// id orders broadcasts by age: larger is newer.
	id uint64
}

// queue is the broadcast queue: updates waiting to be piggybacked. Items
// are kept ordered by (fewer transmits, larger, newer) first, memberlist's
// order, so fresh news goes out before news most peers already have.
//
// Bounded keeps one item per member (a new update about a member replaces
// the old one), retires an item after the retransmit limit, and its callers
// pass a byte budget. Legacy keeps every item forever.
type queue struct {
	legacy bool
	// maxItem is the largest update a Bounded message can carry at all;
	// a larger one is counted in oversized and never queued, because it
	// would never be sent and so never retire.
	maxItem   int
	oversized uint64
	items     []*broadcast
	// latest is the newest item about each member.
	latest map[string]*broadcast
	bytes  int
	nextID uint64
	// picked and rest are scratch space reused by take.
	picked, rest []*broadcast
	// A legacy queue's items' updates, in order, are also kept side by
	// side in mirror[mirAt:] (right-aligned, so the new item in front
	// is written before the others without moving them) when mirrored
	// says so: a take where all fit, nearly every take of a legacy
	// queue, then copies them in one move instead of one item at a time
	// (docs/BENCHMARKS.md, "The legacy decoder reads only what is
	// new"). A take that reorders the items, or a clone, stops the
	// mirror until the next take where all fit makes it again.
	mirror   []Update
	mirAt    int
	mirrored bool
}

func newQueue(mode GossipMode, maxItem int) queue {
	return queue{legacy: mode == Legacy, maxItem: maxItem, latest: make(map[string]*broadcast)}
}

// maxQueuedUpdate is the largest update a Bounded node can piggyback: the
// budget left in its smallest message, a bare ack. Validate guarantees
// that every alive update about a declared peer with cfg.MetaBytes of
// metadata fits.
func maxQueuedUpdate(self string, cfg Config) int {
	return cfg.MaxMessageBytes - EncodedSize(&Message{Kind: Ack, From: self})
}

func (q *queue) clone() queue {
	c := queue{legacy: q.legacy, maxItem: q.maxItem, oversized: q.oversized,
		latest: make(map[string]*broadcast, len(q.latest)), bytes: q.bytes, nextID: q.nextID}
	c.items = make([]*broadcast, len(q.items))
	for i, b := range q.items {
		nb := *b
		c.items[i] = &nb
		if q.latest[b.u.Member] == b {
			c.latest[b.u.Member] = &nb
		}
	}
	return c
}

func (q *queue) len() int { return len(q.items) }

// holds reports whether the newest queued item about u.Member is exactly u
// (state and incarnation), i.e. the news is still being spread.
func (q *queue) holds(member string, s State, inc uint64) bool {
	b, ok := q.latest[member]
	return ok && b.u.State == s && b.u.Incarnation == inc
}

func broadcastLess(a, b *broadcast) bool {
	if a.transmits != b.transmits {
		return a.transmits < b.transmits
	}
	if a.size != b.size {
		return a.size > b.size
	}
	return a.id > b.id
}

// push queues u. In Bounded it supersedes any queued item about the same
// member, and an update larger than maxItem is counted instead of queued
// (it still supersedes: the older item is outdated news).
func (q *queue) push(u Update) {
	size := updateSize(&u)
	if !q.legacy {
		if old, ok := q.latest[u.Member]; ok {
			q.remove(old)
		}
		if size > q.maxItem {
			q.oversized++
			return
		}
	}
	q.nextID++
	b := &broadcast{u: u, size: size, id: q.nextID}
	q.latest[u.Member] = b
	q.bytes += b.size
	// A new item has zero transmits and the newest id: it goes before
	// every item with transmits > 0 and every smaller zero-transmit one.
	i := 0
	for i < len(q.items) && broadcastLess(q.items[i], b) {
		i++
	}
	q.items = append(q.items, nil)
	copy(q.items[i+1:], q.items[i:])
	q.items[i] = b
	if q.mirrored {
		// Every item before i moves one place forward, as in items.
		if q.mirAt == 0 {
			q.mirror, q.mirAt = regrow(q.mirror, q.mirAt, len(q.items), math.MaxInt)
		}
		q.mirAt--
		copy(q.mirror[q.mirAt:q.mirAt+i], q.mirror[q.mirAt+1:])
		q.mirror[q.mirAt+i] = u
	}
}

func (q *queue) remove(b *broadcast) {
	for i, it := range q.items {
		if it == b {
			q.items = append(q.items[:i], q.items[i+1:]...)
			break
		}
	}
	q.bytes -= b.size
	if q.latest[b.u.Member] == b {
		delete(q.latest, b.u.Member)
	}
}

// take appends to dst, in queue order, every item that fits in budget
// bytes, skipping an item equal to skip (an update already stapled to the
// message). Each taken item's transmit count rises; in Bounded an item that
// reached limit transmits retires. It returns dst and the unused budget.
func (q *queue) take(dst []Update, budget, limit int, skip *Update) ([]Update, int) {
	if len(q.items) == 0 {
		return dst, budget
	}
	if skip == nil && q.bytes <= budget {
		return q.takeAll(dst, budget, limit)
	}
	q.mirrored = false
	picked, rest := q.picked[:0], q.rest[:0]
	for _, b := range q.items {
		if budget >= b.size && (skip == nil || !sameNews(&b.u, skip)) {
			dst = append(dst, b.u)
			budget -= b.size
			b.transmits++
			picked = append(picked, b)
			continue
		}
		rest = append(rest, b)
	}
	// picked and rest are each still in order (every picked item gained
	// one transmit), so a merge restores the whole order.
	q.items = q.items[:0]
	i, j := 0, 0
	for i < len(picked) || j < len(rest) {
		var b *broadcast
		if j >= len(rest) || (i < len(picked) && broadcastLess(picked[i], rest[j])) {
			b = picked[i]
			i++
		} else {
			b = rest[j]
			j++
		}
		if !q.legacy && b.transmits >= limit {
			q.bytes -= b.size
			if q.latest[b.u.Member] == b {
				delete(q.latest, b.u.Member)
			}
			continue
		}
		q.items = append(q.items, b)
	}
	clear(picked)
	clear(rest)
	q.picked, q.rest = picked[:0], rest[:0]
	return dst, budget
}

// takeAll is take when every item fits and none is skipped, as nearly
// every take of a legacy queue below a datagram's worth: every item is
// picked, so the merge would give back the order they were in (each
// gained one transmit) and take only has to drop, in place, the items
// that retire. It saves take's two passes through picked and rest.
func (q *queue) takeAll(dst []Update, budget, limit int) ([]Update, int) {
	if q.legacy {
		return q.takeAllLegacy(dst, budget)
	}
	kept := q.items[:0]
	for _, b := range q.items {
		dst = append(dst, b.u)
		budget -= b.size
		b.transmits++
		if !q.legacy && b.transmits >= limit {
			q.bytes -= b.size
			if q.latest[b.u.Member] == b {
				delete(q.latest, b.u.Member)
			}
			continue
		}
		kept = append(kept, b)
	}
	clear(q.items[len(kept):])
	q.items = kept
	return dst, budget
}

// takeAllLegacy is takeAll of a legacy queue, whose items never retire:
// it copies the mirror (making it first if it is stopped) and counts a
// transmit for every item.
func (q *queue) takeAllLegacy(dst []Update, budget int) ([]Update, int) {
	if !q.mirrored {
		n := len(q.items)
		if len(q.mirror) < n {
			q.mirror = make([]Update, max(n, 2*len(q.mirror)))
		}
		clear(q.mirror[:len(q.mirror)-n])
		q.mirAt = len(q.mirror) - n
		for i, b := range q.items {
			q.mirror[q.mirAt+i] = b.u
		}
		q.mirrored = true
	}
	dst = append(dst, q.mirror[q.mirAt:]...)
	for _, b := range q.items {
		b.transmits++
	}
	return dst, budget - q.bytes
}
