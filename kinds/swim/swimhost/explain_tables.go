package swimhost

import (
	"sort"

	"github.com/detsim/detsim/causal"
)

// Tables over a bundle's records that the chains of all its transitions
// share, built once (causal.Index.Memo) per host or link on first use:
// a run's thousands of chains each asked what a sender had queued and
// how fast a link moved bytes, and walked the sender's whole history to
// answer (minutes over the test scenarios). Each answer here is a binary
// search or a walk of one link's sends, and finds what the walk found.

type tablesKey struct{}

type tables struct {
	queues map[string]*queueLog
	links  map[[2]string]*linkLog
	sends  map[string]map[sendKey][]causal.Rec
	subs   map[int64]*sub // by the transition's line
}

func (b *builder) tables() *tables {
	return b.ix.Memo(tablesKey{}, func() any {
		return &tables{queues: map[string]*queueLog{}, links: map[[2]string]*linkLog{}, sends: map[string]map[sendKey][]causal.Rec{}, subs: map[int64]*sub{}}
	}).(*tables)
}

// queueLog is what a host queued and sent, in line order: each of its
// own transitions queues one update; a send that carried at least as
// many updates as had been queued before it carried every one of them.
type queueLog struct {
	pushes []causal.Rec
	// next[k] is the first later push about pushes[k]'s subject
	// (len(pushes) when none): from then on pushes[k] is stale.
	next     []int
	sendLine []int64
	// full[i] and part[i] count the sends among the first i that carried
	// every update queued before them, and those that did not.
	full, part []int32
}

func (b *builder) queueLog(sender string) *queueLog {
	t := b.tables()
	if q := t.queues[sender]; q != nil {
		return q
	}
	q := &queueLog{}
	b.ix.Onward(tTransition, sender, 0, func(p causal.Rec) bool {
		if p.Str("observer") == sender {
			q.pushes = append(q.pushes, p)
		}
		return true
	})
	q.next = make([]int, len(q.pushes))
	last := map[string]int{}
	for k := len(q.pushes) - 1; k >= 0; k-- {
		subj := q.pushes[k].Str("subject")
		q.next[k] = len(q.pushes)
		if n, ok := last[subj]; ok {
			q.next[k] = n
		}
		last[subj] = k
	}
	q.full, q.part = []int32{0}, []int32{0}
	j := 0
	b.ix.Onward(tSent, sender, 0, func(s causal.Rec) bool {
		for j < len(q.pushes) && q.pushes[j].Line() < s.Line() {
			j++
		}
		f, p := q.full[len(q.full)-1], q.part[len(q.part)-1]
		if s.Num("updates") >= int64(j) {
			f++
		} else {
			p++
		}
		q.sendLine = append(q.sendLine, s.Line())
		q.full, q.part = append(q.full, f), append(q.part, p)
		return true
	})
	t.queues[sender] = q
	return q
}

// queuedBy is how many pushes were made at or before line.
func (q *queueLog) queuedBy(line int64) int {
	return sort.Search(len(q.pushes), func(k int) bool { return q.pushes[k].Line() > line })
}

// sentBy is how many sends were made at or before line.
func (q *queueLog) sentBy(line int64) int {
	return sort.Search(len(q.sendLine), func(i int) bool { return q.sendLine[i] > line })
}

// linkLog is one direction of a pair of hosts: the sends on it in line
// order and, found on first use, what became of each.
type linkLog struct {
	sends []causal.Rec
	fates []hop
	known []bool
}

// linkLog memoises a link's sends as queueLog memoises a sender's pushes, in
// the same few lines over different records and keys.
func (b *builder) linkLog(from, to string) *linkLog {
	t := b.tables()
	k := [2]string{from, to}
	if l := t.links[k]; l != nil {
		return l
	}
	l := &linkLog{}
	b.ix.Onward(tSent, from, 0, func(p causal.Rec) bool {
		if p.Str("peer") == to {
			l.sends = append(l.sends, p)
		}
		return true
	})
	l.fates, l.known = make([]hop, len(l.sends)), make([]bool, len(l.sends))
	t.links[k] = l
	return l
}

// hop is the link's i'th send and what became of it, found once.
func (b *builder) linkHop(l *linkLog, i int) hop {
	if !l.known[i] {
		l.fates[i], l.known[i] = b.hop(l.sends[i]), true
	}
	return l.fates[i]
}

// sendKey names the sends a probe round looks for: a host's messages of
// one kind and seq to one peer (a ping and its ack share the seq).
type sendKey struct {
	peer, message string
	seq           int64
}

// sendsOf is host's sends by sendKey, each list in line order.
func (b *builder) sendsOf(host string) map[sendKey][]causal.Rec {
	t := b.tables()
	if s := t.sends[host]; s != nil {
		return s
	}
	s := map[sendKey][]causal.Rec{}
	b.ix.Onward(tSent, host, 0, func(p causal.Rec) bool {
		k := sendKey{p.Str("peer"), p.Str("message"), p.Num("seq")}
		s[k] = append(s[k], p)
		return true
	})
	t.sends[host] = s
	return s
}

// firstSend is host's oldest send of message with seq to peer after
// line: what Index.Earliest finds, without a walk to the end of the
// host's sends when there is none.
func (b *builder) firstSend(host, peer, message string, seq, line int64) (causal.Rec, bool) {
	l := b.sendsOf(host)[sendKey{peer, message, seq}]
	i := sort.Search(len(l), func(i int) bool { return l[i].Line() > line })
	if i == len(l) {
		return causal.Rec{}, false
	}
	return l[i], true
}

// lastSend is host's newest such send at or before line (Index.Latest).
func (b *builder) lastSend(host, peer, message string, seq, line int64) (causal.Rec, bool) {
	l := b.sendsOf(host)[sendKey{peer, message, seq}]
	i := sort.Search(len(l), func(i int) bool { return l[i].Line() > line })
	if i == 0 {
		return causal.Rec{}, false
	}
	return l[i-1], true
}
