package tui

// lineRing caches serialised event records by line number. A run is
// deterministic, so line n always holds the same bytes: lines written
// while re-executing after a reverse step are the very lines the first
// pass wrote, and the cache never has to be invalidated.
//
// It keeps the most recently executed ringSize lines, slot n mod
// ringSize, each slot remembering which line it holds. Slots reuse their
// byte buffers, so a long continue costs one copy per record and no
// allocation once the ring is warm.
type lineRing struct {
	slots []ringSlot
}

type ringSlot struct {
	line int64 // 0: empty
	step int64 // the step that emitted it
	at   int64 // its virtual time
	b    []byte
}

// ringSize is how many records the cache holds, and so how far back from
// the current step the event log can scroll.
const ringSize = 8192

func newLineRing(n int) *lineRing { return &lineRing{slots: make([]ringSlot, n)} }

func (r *lineRing) put(line, step, at int64, b []byte) {
	s := &r.slots[line%int64(len(r.slots))]
	s.line, s.step, s.at = line, step, at
	s.b = append(s.b[:0], b...)
}

// get returns line n if cached. The bytes are the ring's: copy them before
// the next put.
func (r *lineRing) get(line int64) (*ringSlot, bool) {
	if line < 1 {
		return nil, false
	}
	s := &r.slots[line%int64(len(r.slots))]
	return s, s.line == line
}

// missing returns the first line in [lo, hi] not cached, or 0.
func (r *lineRing) missing(lo, hi int64) int64 {
	for n := lo; n <= hi; n++ {
		if _, ok := r.get(n); !ok {
			return n
		}
	}
	return 0
}
