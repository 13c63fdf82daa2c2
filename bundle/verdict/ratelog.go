package verdict

import "encoding/binary"

// rateLog is the one record of the matching records every event_rate
// assertion over one event type shares. Entries are (time, line) pairs,
// each written as the unsigned varint of its time's advance over the
// previous entry's and the signed varint of its line's: two to twenty
// bytes, three to five in a real run. An assertion reads the log from
// its own head, the oldest entry inside its window; the log keeps the
// bytes back to the oldest head of an assertion still reading it.
type rateLog struct {
	eventType string
	buf       []byte
	base      int64   // the absolute byte offset of buf[0]
	n         int64   // entries appended
	last      mark    // the newest entry, which the next one is encoded against
	heads     []int64 // each reader's head as an absolute byte offset; -1 once it left
	readers   int     // heads not -1
}

// rateLogs holds one log per event type some event_rate assertion counts.
type rateLogs []rateLog

// join registers a reader of typ's log and returns the log's index and
// the reader's slot.
func (ls *rateLogs) join(typ string) (log, slot int) {
	log = -1
	for i := range *ls {
		if (*ls)[i].eventType == typ {
			log = i
		}
	}
	if log < 0 {
		*ls = append(*ls, rateLog{eventType: typ})
		log = len(*ls) - 1
	}
	l := &(*ls)[log]
	l.heads = append(l.heads, 0)
	l.readers++
	return log, len(l.heads) - 1
}

// observe appends the record to its type's log, if a reader remains.
func (ls rateLogs) observe(line int, typ string, t int64) {
	for i := range ls {
		if l := &ls[i]; l.eventType == typ && l.readers > 0 {
			l.add(markAt(line, t))
		}
	}
}

func (l *rateLog) add(m mark) {
	if len(l.buf)+2*binary.MaxVarintLen64 > cap(l.buf) {
		l.makeRoom()
	}
	l.buf = binary.AppendUvarint(l.buf, uint64(m.TimeNs-l.last.TimeNs)) // times never go back
	l.buf = binary.AppendVarint(l.buf, int64(m.Line-l.last.Line))
	l.last = m
	l.n++
}

// makeRoom runs when the buffer is full. If at least half of it lies
// before every reader's head it drops those bytes (and shrinks a buffer
// more than eight times too big for the rest); otherwise more than half
// is live and the buffer doubles. So its capacity stays under eight
// times the bytes the readers need, plus 128, from one compaction to
// the next, and each entry costs O(1) copying and O(readers / entries
// per buffer) scanning.
func (l *rateLog) makeRoom() {
	oldest := l.base + int64(len(l.buf))
	for _, h := range l.heads {
		if h >= 0 {
			oldest = min(oldest, h)
		}
	}
	if dead := int(oldest - l.base); 2*dead >= len(l.buf) && len(l.buf) > 0 {
		l.buf = l.buf[:copy(l.buf, l.buf[dead:])]
		l.base = oldest
		if fits := len(l.buf)+2*binary.MaxVarintLen64 <= cap(l.buf); fits && cap(l.buf) <= 8*len(l.buf)+128 {
			return
		}
	}
	// Double; or, once a reader that needed far more has moved on or
	// left, shrink to eight times what is live.
	grown := make([]byte, len(l.buf), max(64, 2*len(l.buf)+2*binary.MaxVarintLen64, min(2*cap(l.buf), 8*len(l.buf)+128)))
	copy(grown, l.buf)
	l.buf = grown
}

// leave releases slot: the log no longer keeps bytes for it, and with no
// reader left keeps none at all.
func (l *rateLog) leave(slot int) {
	l.heads[slot] = -1
	l.readers--
	if l.readers == 0 {
		l.buf, l.base = nil, l.base+int64(len(l.buf))
	}
}

// at decodes the entry at absolute byte offset off, encoded against
// prev, and returns it with its length.
func (l *rateLog) at(off int64, prev mark) (mark, int) {
	b := l.buf[off-l.base:]
	dt, n1 := binary.Uvarint(b)
	dl, n2 := binary.Varint(b[n1:])
	return markAt(prev.Line+int(dl), prev.TimeNs+int64(dt)), n1 + n2
}

func (l rateLog) clone() rateLog {
	l.buf = append([]byte(nil), l.buf...)
	l.heads = append([]int64(nil), l.heads...)
	return l
}

func (ls rateLogs) clone() rateLogs {
	if ls == nil {
		return nil
	}
	c := make(rateLogs, len(ls))
	for i := range ls {
		c[i] = ls[i].clone()
	}
	return c
}
