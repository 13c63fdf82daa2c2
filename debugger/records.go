package debugger

// lineRing caches serialised event records by line number. A run is
// deterministic, so line n always holds the same bytes: lines written
// while re-executing after a reverse step are the very lines the first
// pass wrote, and the cache never has to be invalidated.
//
// It keeps the most recently executed RecordCache lines, slot n mod
// RecordCache, each slot remembering which line it holds. Slots reuse their
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

// RecordCache is how many records the cache holds, and so how far back
// from the current step a viewer's event log can scroll.
const RecordCache = 8192

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

// Record is one cached event record: its line in events.ndjson, the step
// that emitted it, its virtual time and its bytes.
type Record struct {
	Line, Step, At int64
	// Bytes are the cache's own: copy them before the session moves.
	Bytes []byte
}

// Record returns line n of the run's events.ndjson if the cache holds it.
// The cache holds the RecordCache lines most recently executed.
func (s *Session) Record(line int64) (Record, bool) {
	sl, ok := s.ring.get(line)
	if !ok {
		return Record{}, false
	}
	return Record{Line: sl.line, Step: sl.step, At: sl.at, Bytes: sl.b}, true
}

// MissingRecord returns the first line in [lo, hi] the cache does not
// hold, or 0 when it holds them all.
func (s *Session) MissingRecord(lo, hi int64) int64 { return s.ring.missing(lo, hi) }

// RewindBefore moves the timeline to the latest checkpoint (or the start)
// whose records end before line, so that re-executing from there writes
// line, and every line after it, into the cache again.
func (s *Session) RewindBefore(line int64) error {
	target := int64(0)
	for _, m := range s.tl.Marks() {
		if m.Records < line {
			target = m.Index
		}
	}
	_, err := s.tl.Goto(target)
	return err
}

// ForgetRecords empties the record cache, as if every record had been
// pushed out of it; a viewer then refills what it needs by re-executing
// (RewindBefore). Tests use it to prove that refill.
func (s *Session) ForgetRecords() { s.ring = newLineRing(RecordCache) }
